package proxyserver

import (
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// plannedOps is how far a session has taken its requests: the op id of the
// last one planned, in the order they arrive on the stream. Planning
// registers the handles a request makes, so a caller outside the stream (a
// worker's peer naming an array of the session) that knows the client had
// sent request N when it named the array waits here until N is planned:
// the request that makes the array may still be on its way.
type plannedOps struct {
	mu   sync.Mutex
	last uint64
	wake chan struct{} // closed when last advances; nil while nobody waits
}

// advance records that request id has been planned.
func (p *plannedOps) advance(id uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = max(p.last, id)
	if p.wake != nil {
		close(p.wake)
		p.wake = nil
	}
}

// await returns once request id has been planned, or with an error when ctx
// or the session (ended) ends first.
func (p *plannedOps) await(ctx context.Context, ended <-chan struct{}, id uint64) error {
	for {
		p.mu.Lock()
		if p.last >= id {
			p.mu.Unlock()
			return nil
		}
		if p.wake == nil {
			p.wake = make(chan struct{})
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ifrt.Errorf(ifrt.CodeOf(ctx.Err()), "proxyserver: waiting for the session to take request %d: %w", id, ctx.Err())
		case <-ended:
			return ifrt.Errorf(ifrt.Canceled, "proxyserver: the session ended before it took request %d", id)
		}
	}
}
