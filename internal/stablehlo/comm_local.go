package stablehlo

import (
	"context"
	"io"
	"sync"
)

// LocalGroup is the in-process Communicator implementation: the
// participants of one execution inside one process (the devices of one
// gocpu client), each running on its own goroutine. A message is handed
// over, not copied: Send blocks until the receiver has written the sender's
// bytes to its io.Writer, so each message costs the receiver's one pass over
// the data (a copy or a reduction) and nothing else.
//
// A LocalGroup serves one execution; make a new one for each.
type LocalGroup struct {
	n     int
	ended []chan struct{} // closed by each participant's Done

	mu      sync.Mutex
	pairs   map[[2]int]chan *localMessage // unbuffered, by (from, to)
	failed  chan struct{}                 // closed on the first failure
	failure error                         // what the others report after it
	doneSet []bool
}

type localMessage struct {
	tag  Tag
	data []byte
	// consumed is closed by the receiver after writing data (or refusing
	// it, with err set), releasing the sender.
	consumed chan struct{}
	err      error
}

// NewLocalGroup returns a group of n participants, numbered 0 to n-1.
func NewLocalGroup(n int) *LocalGroup {
	g := &LocalGroup{n: n, ended: make([]chan struct{}, n), pairs: map[[2]int]chan *localMessage{},
		failed: make(chan struct{}), doneSet: make([]bool, n)}
	for i := range g.ended {
		g.ended[i] = make(chan struct{})
	}
	return g
}

// Endpoint returns participant i's Communicator.
func (g *LocalGroup) Endpoint(i int) Communicator { return &localEndpoint{g: g, self: i} }

func (g *LocalGroup) pair(from, to int) chan *localMessage {
	g.mu.Lock()
	defer g.mu.Unlock()
	k := [2]int{from, to}
	c := g.pairs[k]
	if c == nil {
		c = make(chan *localMessage)
		g.pairs[k] = c
	}
	return c
}

func (g *LocalGroup) abortErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.failure
}

type localEndpoint struct {
	g    *LocalGroup
	self int
}

func (e *localEndpoint) check(peer int) error {
	if peer < 0 || peer >= e.g.n || peer == e.self {
		return internalf("participant %d cannot exchange with participant %d of a group of %d", e.self, peer, e.g.n)
	}
	return nil
}

func (e *localEndpoint) Send(ctx context.Context, to int, tag Tag, data []byte) error {
	if err := e.check(to); err != nil {
		return err
	}
	m := &localMessage{tag: tag, data: data, consumed: make(chan struct{})}
	select {
	case e.g.pair(e.self, to) <- m:
	case <-e.g.failed:
		return e.g.abortErr()
	case <-e.g.ended[to]:
		return errorf(Aborted, "participant %d ended without receiving %s from participant %d: the participants' programs disagree on their collectives", to, tag, e.self)
	case <-ctx.Done():
		return ctx.Err()
	}
	// The receiver holds the message now and is writing it out: wait, so
	// that data is not touched once Send returns.
	<-m.consumed
	return m.err
}

func (e *localEndpoint) Recv(ctx context.Context, from int, tag Tag, size int, w io.Writer) error {
	if err := e.check(from); err != nil {
		return err
	}
	select {
	case m := <-e.g.pair(from, e.self):
		defer close(m.consumed)
		if m.tag != tag || len(m.data) != size {
			m.err = errorf(Aborted, "participant %d received %s of %d bytes from participant %d, expected %s of %d bytes: the participants' programs disagree on their collectives",
				e.self, m.tag, len(m.data), from, tag, size)
			return m.err
		}
		if _, err := w.Write(m.data); err != nil {
			m.err = errorf(Aborted, "participant %d could not take %s from participant %d", e.self, tag, from)
			return err
		}
		return nil
	case <-e.g.failed:
		return e.g.abortErr()
	case <-e.g.ended[from]:
		return errorf(Aborted, "participant %d ended without sending %s to participant %d: the participants' programs disagree on their collectives", from, tag, e.self)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *localEndpoint) Done(err error) {
	g := e.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.doneSet[e.self] {
		return
	}
	g.doneSet[e.self] = true
	if err != nil && g.failure == nil {
		g.failure = errorf(Aborted, "participant %d failed: %v", e.self, err)
		close(g.failed)
	}
	close(g.ended[e.self])
}
