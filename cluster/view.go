package cluster

import (
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// holders counts the arrays that share one set of shards: an array and the
// views FullyReplicatedShard made of it. The last one to let go frees them.
type holders struct {
	mu sync.Mutex
	n  int
}

// view returns a new array over a's shards, for a FullyReplicatedShard of a
// single-device array with ReuseInput: jaxlib reads every single-device array
// back that way, and a copy on the worker would cost a request and the
// array's memory for nothing. Deleting either array leaves the shards to the
// other (ifrt.Array.Delete's rule for memory made with ReuseInput).
func (a *array) view(spec ifrt.ArraySpec) (*array, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.deleted {
		return nil, ifrt.ErrArrayDeleted
	}
	if a.shared == nil {
		a.shared = &holders{n: 1}
	}
	a.shared.mu.Lock()
	a.shared.n++
	a.shared.mu.Unlock()
	return &array{c: a.c, Described: backend.Described{ArraySpec: spec}, computed: a.computed, shards: a.shards, shared: a.shared}, nil
}

// letGo marks a deleted and returns the shards to free: none while another
// array shares them.
func (a *array) letGo() []*shard {
	a.mu.Lock()
	shards, shared := a.shards, a.shared
	wasDeleted := a.deleted
	a.shards, a.deleted = nil, true
	a.mu.Unlock()
	if wasDeleted || shared == nil {
		return shards
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.n--
	if shared.n > 0 {
		return nil
	}
	return shards
}

// Release frees the shards as Delete does, without a future: each worker
// array is released (backend.Release), which costs the proxy client no
// request of its own.
func (a *array) Release() {
	for _, s := range a.letGo() {
		if s.freeable() {
			backend.Release(s.array)
		}
	}
}
