package ifrt

import (
	"context"
	"sync"
)

// Future is the result of asynchronous work: an error or success, available once.
// A nil *Future is an already successful one. Futures are safe for concurrent use;
// waiting on one never cancels the work behind it.
type Future struct {
	done chan struct{}
	once sync.Once
	err  error
}

// NewFuture returns a pending future and the function that resolves it. Only the
// first call of resolve counts.
func NewFuture() (*Future, func(error)) {
	f := &Future{done: make(chan struct{})}
	return f, func(err error) {
		f.once.Do(func() {
			f.err = err
			close(f.done)
		})
	}
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// ReadyFuture returns a future already resolved with err.
func ReadyFuture(err error) *Future {
	f := &Future{done: closedChan, err: err}
	f.once.Do(func() {})
	return f
}

// Done returns a channel closed once the future resolves.
func (f *Future) Done() <-chan struct{} {
	if f == nil {
		return closedChan
	}
	return f.done
}

// Await waits for the future and returns its error, or ctx's error if ctx ends first.
// A context error comes back unchanged; the work goes on.
func (f *Future) Await(ctx context.Context) error {
	if f == nil {
		return nil
	}
	select {
	case <-f.done:
		return f.err
	default:
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// JoinFutures returns a future that resolves when all of fs have, with the first
// error among them (in argument order).
func JoinFutures(fs ...*Future) *Future {
	pending := 0
	for _, f := range fs {
		if f != nil {
			pending++
		}
	}
	if pending == 0 {
		return nil
	}
	out, resolve := NewFuture()
	go func() {
		var first error
		for _, f := range fs {
			if err := f.Await(context.Background()); err != nil && first == nil {
				first = err
			}
		}
		resolve(first)
	}()
	return out
}
