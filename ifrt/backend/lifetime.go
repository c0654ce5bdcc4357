package backend

import (
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
)

// Lifetime is a client's open or closed state and the arrays (A) and
// executables (E) it holds. The zero value is an open client holding nothing.
type Lifetime[A, E comparable] struct {
	closed      atomic.Bool
	Arrays      Objects[A]
	Executables Objects[E]
}

// CheckOpen returns ErrClientClosed once Close has been called.
func (l *Lifetime[A, E]) CheckOpen() error {
	if l.closed.Load() {
		return ifrt.ErrClientClosed
	}
	return nil
}

// Close marks the client closed and frees every array, then every
// executable, it holds. It reports false, freeing nothing, when the client
// was closed already.
func (l *Lifetime[A, E]) Close(freeArray func(A), freeExecutable func(E)) bool {
	if l.closed.Swap(true) {
		return false
	}
	for _, a := range l.Arrays.Drain() {
		freeArray(a)
	}
	for _, e := range l.Executables.Drain() {
		freeExecutable(e)
	}
	return true
}

// Live returns how many arrays and executables the client holds; tests use it
// to find leaks.
func (l *Lifetime[A, E]) Live() (arrays, executables int) {
	return l.Arrays.Live(), l.Executables.Live()
}
