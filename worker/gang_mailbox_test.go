package worker

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/stablehlo"
)

// One exchange stream carries every pair between two workers: frames of a
// pair that nobody reads yet must not keep the next pair's frame from its
// receiver, and each pair's frames come out in the order they went in.
func TestMailboxPairsDoNotWaitForEachOther(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	never := make(chan struct{})
	noCause := func() error { return nil }
	l := newLaunches().join(1, false)
	const unread = 100 // more than any bound a stream could wait on
	go func() {        // as the stream's handler feeds them
		for i := range unread {
			l.box(0, 2).put(&frame{tag: stablehlo.Tag{Message: uint32(i)}})
		}
		l.box(1, 2).put(&frame{tag: stablehlo.Tag{Message: 7}})
		l.box(1, 2).end()
	}()
	if f, ok, err := l.box(1, 2).next(ctx, never, noCause); err != nil || !ok || f.tag.Message != 7 {
		t.Fatalf("the second pair's frame: %+v, %v, %v; want message 7", f, ok, err)
	}
	if _, ok, err := l.box(1, 2).next(ctx, never, noCause); ok || err != nil {
		t.Fatalf("an ended, empty mailbox answered %v, %v; want no frame and no error", ok, err)
	}
	for i := range unread {
		f, ok, err := l.box(0, 2).next(ctx, never, noCause)
		if err != nil || !ok || f.tag.Message != uint32(i) {
			t.Fatalf("frame %d of the first pair: %+v, %v, %v", i, f, ok, err)
		}
	}
}

// A receiver waiting on an empty mailbox returns the launch's failure.
func TestMailboxWaitEndsWithTheLaunch(t *testing.T) {
	failed := make(chan struct{})
	lost := errors.New("lost")
	done := make(chan error, 1)
	b := newMailbox()
	go func() {
		_, _, err := b.next(context.Background(), failed, func() error { return lost })
		done <- err
	}()
	close(failed)
	select {
	case err := <-done:
		if !errors.Is(err, lost) {
			t.Fatalf("next returned %v, want the launch's failure", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("next kept waiting after the launch failed")
	}
}

// What no receiver took when the launch ends goes back to its sender: a
// shared segment left in use would stay taken until the orphan timeout.
func TestLaunchEndFreesUntakenFrames(t *testing.T) {
	ls := newLaunches()
	l := ls.join(5, false)
	if err := l.start(nil, []string{"a", "b"}, map[int]bool{1: true}); err != nil {
		t.Fatal(err)
	}
	freed := 0
	for range 3 {
		l.box(0, 1).put(&frame{remote: &inFrame{release: func() error { freed++; return nil }}})
	}
	ls.leave(l)
	if freed != 3 {
		t.Fatalf("%d of 3 untaken frames were freed when the launch ended", freed)
	}
}
