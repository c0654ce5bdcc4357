package worker

import (
	"context"
	"sync"
)

// mailbox holds the frames one partition sends another in one launch, in
// the order they were sent. Putting never waits: one exchange stream
// carries the frames of every pair between two workers, and it must not
// stall behind a receiver that reads another pair first. What it holds is
// bounded by the messages of the launch's collectives, which the receivers
// need anyway.
type mailbox struct {
	mu     sync.Mutex
	frames []*frame
	ended  bool
	ready  chan struct{} // holds a token while something was put or it ended
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

func (b *mailbox) put(f *frame) {
	b.mu.Lock()
	b.frames = append(b.frames, f)
	b.mu.Unlock()
	b.wake()
}

// end says no more frames come: next answers false once the rest is taken.
func (b *mailbox) end() {
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
	b.wake()
}

func (b *mailbox) wake() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// next returns the oldest frame, waiting for one; false when the box ended
// empty. It returns early with the error of ctx or, when failed closes,
// with cause().
func (b *mailbox) next(ctx context.Context, failed <-chan struct{}, cause func() error) (*frame, bool, error) {
	for {
		b.mu.Lock()
		if len(b.frames) > 0 {
			f := b.frames[0]
			b.frames[0] = nil
			b.frames = b.frames[1:]
			b.mu.Unlock()
			return f, true, nil
		}
		ended := b.ended
		b.mu.Unlock()
		if ended {
			return nil, false, nil
		}
		select {
		case <-b.ready:
		case <-failed:
			return nil, false, cause()
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
}

// drain frees what no receiver took: the transport's buffers and the
// senders' shared segments of frames from other workers.
func (b *mailbox) drain() {
	b.mu.Lock()
	frames := b.frames
	b.frames, b.ended = nil, true
	b.mu.Unlock()
	for _, f := range frames {
		if f.remote != nil {
			_ = f.remote.free()
		}
	}
}
