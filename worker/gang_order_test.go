package worker

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// Launches start in sequence order whatever order they arrive in; a launch
// that gave up its turn does not hold the next one back; a new incarnation
// counts from 1.
func TestSequencerOrder(t *testing.T) {
	ctx := testenv.Context(t, 20*time.Second)
	s := newSequencer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	started := make(chan uint64, 8)
	for _, seq := range []uint64{4, 3} {
		go func() {
			if err := s.wait(ctx, "a", seq); err != nil {
				t.Error(err)
			}
			started <- seq
		}()
	}
	// Let them arrive and wait for 1 and 2 (a test cannot observe "waiting",
	// only that none starts before 1 is released).
	time.Sleep(50 * time.Millisecond)
	select {
	case seq := <-started:
		t.Fatalf("launch %d started before launches 1 and 2", seq)
	default:
	}
	s.release("a", 1)
	if err := s.wait(ctx, "a", 2); err != nil {
		t.Fatal(err)
	}
	// 3 and 4 start now, 4 after 3 (their reports may cross).
	if a, b := <-started, <-started; a+b != 7 {
		t.Fatalf("started %d and %d, want 3 and 4", a, b)
	}
	if err := s.wait(ctx, "b", 1); err != nil {
		t.Fatalf("a new incarnation's first launch: %v", err)
	}
}
