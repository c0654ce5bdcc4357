package worker

import (
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// members knows which addresses belong to the cluster's live workers, as the RM
// lists them: a Gather reads pieces from those and from no one else, so a
// request cannot make the worker dial an address of its choosing.
type members struct {
	w *Server

	mu    sync.Mutex
	known map[string]bool // from the RM's last answer
}

// check returns nil if addr is a live worker of the cluster, asking the RM again
// when addr is not among the workers it listed last.
func (m *members) check(ctx context.Context, addr string) error {
	m.mu.Lock()
	ok := m.known[addr]
	m.mu.Unlock()
	if ok {
		return nil
	}
	m.w.mu.Lock()
	client := m.w.rmClient
	m.w.mu.Unlock()
	if client == nil {
		return ifrt.Errorf(ifrt.PermissionDenied, "worker: %s is not a worker of this cluster: this worker is registered with no resource manager, so it reads pieces from no other worker", addr)
	}
	view, err := client.Cluster(ctx)
	if err != nil {
		return ifrt.Errorf(ifrt.Unavailable, "worker: asking the resource manager whether %s is a worker of the cluster: %w", addr, err)
	}
	known := map[string]bool{}
	for _, w := range view.Workers {
		if w.State == rm.StateLive && w.Address != "" {
			known[w.Address] = true
		}
	}
	m.mu.Lock()
	m.known = known
	m.mu.Unlock()
	if !known[addr] {
		return ifrt.Errorf(ifrt.PermissionDenied, "worker: %s is not a live worker of this cluster (the resource manager lists %d)", addr, len(known))
	}
	return nil
}
