package backend

import (
	"context"
	"sync"
)

// Future is a value of type T computed later, or the error that computing it
// met. The zero value is not usable; make one with NewFuture. It is safe for
// concurrent use.
type Future[T any] struct {
	done chan struct{}
	once sync.Once
	val  T
	err  error
}

// NewFuture returns a pending future.
func NewFuture[T any]() *Future[T] { return &Future[T]{done: make(chan struct{})} }

// Resolve sets the value and the error; only the first call counts.
func (f *Future[T]) Resolve(v T, err error) {
	f.once.Do(func() {
		f.val, f.err = v, err
		close(f.done)
	})
}

// Done returns a channel closed once the future resolves.
func (f *Future[T]) Done() <-chan struct{} { return f.done }

// Await waits for the value, or returns ctx's error if ctx ends first.
func (f *Future[T]) Await(ctx context.Context) (T, error) {
	select {
	case <-f.done:
		return f.val, f.err
	default:
	}
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
