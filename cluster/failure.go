package cluster

import "sync"

// failure is the client's sticky failure: the first error set stays, and
// every operation of the client fails with it from then on.
type failure struct {
	mu     sync.Mutex
	err    error
	failed chan struct{} // closed when err is set
}

func newFailure() *failure { return &failure{failed: make(chan struct{})} }

// set records err unless an error is already recorded, and reports whether it
// did.
func (f *failure) set(err error) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return false
	}
	f.err = err
	close(f.failed)
	return true
}

func (f *failure) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
