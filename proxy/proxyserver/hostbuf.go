package proxyserver

import (
	"context"
	"sync"

	"github.com/openpathways/pathways/ifrt"
)

// hostBuffers are the host buffers of one session, keyed by handle. A consumer
// may ask for a buffer before it arrives: take blocks until put stores it or
// the session ends. Every stored buffer carries the reservation of its bytes
// against the host-buffer limits, returned when the buffer is consumed,
// deleted or dropped with the session, and counts as work in progress for a
// draining server.
type hostBuffers struct {
	act *activity

	mu     sync.Mutex
	slots  map[uint64]*bufferSlot
	closed bool
}

type bufferSlot struct {
	ready chan struct{} // closed once data is stored
	data  []byte
	res   *reservation
	taken bool // a consumer is waiting for or took this slot
}

// release returns the slot's reservation; its memory goes back to the
// system once the collector has freed it (memoryReturn).
func (s *bufferSlot) release() {
	s.res.release()
	memoryReturn.released(int64(len(s.data)))
}

func newHostBuffers(act *activity) *hostBuffers {
	return &hostBuffers{act: act, slots: map[uint64]*bufferSlot{}}
}

func (b *hostBuffers) slot(h uint64) *bufferSlot {
	s, ok := b.slots[h]
	if !ok {
		s = &bufferSlot{ready: make(chan struct{})}
		b.slots[h] = s
	}
	return s
}

// put stores data under h with the reservation of its bytes, which the buffers
// now own (also when put fails); a buffer already stored there is
// ALREADY_EXISTS.
func (b *hostBuffers) put(h uint64, data []byte, res *reservation) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		res.release()
		return ifrt.Errorf(ifrt.Canceled, "host buffer %d: the session has ended", h)
	}
	s := b.slot(h)
	select {
	case <-s.ready:
		res.release()
		return ifrt.Errorf(ifrt.AlreadyExists, "host buffer %d already exists", h)
	default:
	}
	s.data, s.res = data, res
	b.act.add()
	close(s.ready)
	return nil
}

// take waits for the buffer h, removes it and returns its data and the function
// that returns its reservation, to be called once the data is no longer
// needed. It fails with CANCELLED when the session ends first.
func (b *hostBuffers) take(ctx context.Context, h uint64) ([]byte, func(), error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, nil, ifrt.Errorf(ifrt.Canceled, "host buffer %d: the session has ended", h)
	}
	s := b.slot(h)
	if s.taken {
		b.mu.Unlock()
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d is used twice", h)
	}
	s.taken = true
	b.mu.Unlock()
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil, nil, ifrt.Errorf(ifrt.Canceled, "waiting for host buffer %d: the session has ended", h)
	}
	b.mu.Lock()
	mine := b.slots[h] == s
	if mine {
		delete(b.slots, h)
	}
	b.mu.Unlock()
	if !mine {
		// close dropped it (and its reservation) while we were waking up.
		return nil, nil, ifrt.Errorf(ifrt.Canceled, "host buffer %d: the session has ended", h)
	}
	return s.data, func() { s.release(); b.act.done() }, nil
}

// lookup returns the stored buffer h without removing it.
func (b *hostBuffers) lookup(ctx context.Context, h uint64) ([]byte, error) {
	b.mu.Lock()
	s, ok := b.slots[h]
	b.mu.Unlock()
	if !ok || s.taken {
		return nil, ifrt.Errorf(ifrt.NotFound, "unknown host buffer handle %d", h)
	}
	select {
	case <-s.ready:
		return s.data, nil
	case <-ctx.Done():
		return nil, ifrt.WithCode(ifrt.CodeOf(ctx.Err()), ctx.Err())
	}
}

// remove drops the stored buffer h.
func (b *hostBuffers) remove(h uint64) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.slots[h]
	if !ok || s.taken {
		return ifrt.Errorf(ifrt.NotFound, "unknown host buffer handle %d", h)
	}
	select {
	case <-s.ready:
	default:
		return ifrt.Errorf(ifrt.NotFound, "unknown host buffer handle %d", h)
	}
	delete(b.slots, h)
	s.release()
	b.act.done()
	return nil
}

// close drops every buffer; later puts and takes fail.
func (b *hostBuffers) close() {
	b.mu.Lock()
	slots := b.slots
	b.closed = true
	b.slots = map[uint64]*bufferSlot{}
	b.mu.Unlock()
	for _, s := range slots {
		select {
		case <-s.ready:
			s.release()
			b.act.done()
		default:
		}
	}
}
