package testenv

import (
	"context"
	"testing"
	"time"
)

// Context returns a context that ends after d or when the test's cleanups
// have run, whichever comes first: the deadline for a test's steps. It stays
// live during cleanups registered after it, so they can use it to shut down.
func Context(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
