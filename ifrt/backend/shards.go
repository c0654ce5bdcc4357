package backend

import (
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// Shards is an array's storage until the array is deleted: one S per device
// of its sharding (gocpu's bytes, pjrtifrt's buffers). Give an array type a
// Shards field; its methods are safe for concurrent use.
type Shards[S any] struct {
	mu      sync.RWMutex
	shards  []S
	deleted bool
}

// Hold stores the array's shards, once, when the array is made.
func (h *Shards[S]) Hold(shards []S) {
	h.mu.Lock()
	h.shards = shards
	h.mu.Unlock()
}

// IsDeleted reports whether Take has run.
func (h *Shards[S]) IsDeleted() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.deleted
}

// Take deletes the array: it returns the shards for the caller to free, nil
// when the array was deleted before.
func (h *Shards[S]) Take() []S {
	h.mu.Lock()
	defer h.mu.Unlock()
	shards := h.shards
	h.shards, h.deleted = nil, true
	return shards
}

// Read calls read with the shards, which no Take can return meanwhile, or
// returns ErrArrayDeleted once the array is deleted.
func (h *Shards[S]) Read(read func([]S)) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.deleted {
		return ifrt.ErrArrayDeleted
	}
	read(h.shards)
	return nil
}
