package testenv

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// TestSyncBufferConcurrentWrites: lines written from many goroutines all
// arrive whole.
func TestSyncBufferConcurrentWrites(t *testing.T) {
	var b SyncBuffer
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				fmt.Fprintf(&b, "writer %d line %d\n", i, j)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("got %d lines, want 800", len(lines))
	}
	for _, l := range lines {
		var i, j int
		if n, err := fmt.Sscanf(l, "writer %d line %d", &i, &j); n != 2 || err != nil {
			t.Errorf("torn line %q", l)
		}
	}
}
