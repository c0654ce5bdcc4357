package proxyserver

import (
	"context"
	"sync"
)

// activity counts the work in progress across the server's sessions: requests
// being served, host buffers being received or sent, and host buffers stored
// but not yet consumed or deleted (the middle of a transfer). A draining server
// waits until it is idle.
type activity struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n == 0
}

func newActivity() *activity {
	a := &activity{idle: make(chan struct{})}
	close(a.idle)
	return a
}

func (a *activity) add() {
	a.mu.Lock()
	if a.n == 0 {
		a.idle = make(chan struct{})
	}
	a.n++
	a.mu.Unlock()
}

func (a *activity) done() {
	a.mu.Lock()
	a.n--
	if a.n == 0 {
		close(a.idle)
	}
	a.mu.Unlock()
}

// wait returns when nothing is in progress, or ctx's error when it ends first.
func (a *activity) wait(ctx context.Context) error {
	a.mu.Lock()
	idle := a.idle
	a.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
