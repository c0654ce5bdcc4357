package stablehlo

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
)

// streamGroup is a Communicator over one byte stream per ordered pair of
// participants (io.Pipe here, a network stream in a real deployment): each
// message is a header (tag and size) and its bytes, written in small pieces
// and read back in others, so the collectives see chunk boundaries that
// split elements. It is the shape a network implementation takes; tests
// run every collective over it as well as over LocalGroup.
type streamGroup struct {
	n     int
	pipes map[[2]int]*pipe

	mu      sync.Mutex
	failure error
}

type pipe struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func newStreamGroup(n int) *streamGroup {
	g := &streamGroup{n: n, pipes: map[[2]int]*pipe{}}
	for from := range n {
		for to := range n {
			if from != to {
				r, w := io.Pipe()
				g.pipes[[2]int{from, to}] = &pipe{r, w}
			}
		}
	}
	return g
}

func (g *streamGroup) endpoint(i int) Communicator { return &streamEnd{g: g, self: i} }

type streamEnd struct {
	g    *streamGroup
	self int
}

const streamChunk = 5 // bytes per write; reads use 3

func (e *streamEnd) Send(ctx context.Context, to int, tag Tag, data []byte) error {
	p := e.g.pipes[[2]int{e.self, to}]
	if p == nil {
		return fmt.Errorf("no stream to %d", to)
	}
	var hdr [20]byte
	binary.LittleEndian.PutUint64(hdr[0:], tag.Collective)
	binary.LittleEndian.PutUint32(hdr[8:], tag.Message)
	binary.LittleEndian.PutUint64(hdr[12:], uint64(len(data)))
	if _, err := p.w.Write(hdr[:]); err != nil {
		return e.g.cause(err)
	}
	for len(data) > 0 {
		k := min(streamChunk, len(data))
		if _, err := p.w.Write(data[:k]); err != nil {
			return e.g.cause(err)
		}
		data = data[k:]
	}
	return ctx.Err()
}

func (e *streamEnd) Recv(ctx context.Context, from int, tag Tag, size int, w io.Writer) error {
	p := e.g.pipes[[2]int{from, e.self}]
	if p == nil {
		return fmt.Errorf("no stream from %d", from)
	}
	var hdr [20]byte
	if _, err := io.ReadFull(p.r, hdr[:]); err != nil {
		return e.g.cause(err)
	}
	got := Tag{Collective: binary.LittleEndian.Uint64(hdr[0:]), Message: binary.LittleEndian.Uint32(hdr[8:])}
	n := binary.LittleEndian.Uint64(hdr[12:])
	if got != tag || n != uint64(size) {
		return errorf(Aborted, "got %s of %d bytes, expected %s of %d", got, n, tag, size)
	}
	if _, err := io.CopyBuffer(w, io.LimitReader(p.r, int64(size)), make([]byte, 3)); err != nil {
		return e.g.cause(err)
	}
	return ctx.Err()
}

// Done closes this participant's streams; a failure closes every stream,
// so that pending reads and writes anywhere return it.
func (e *streamEnd) Done(err error) {
	g := e.g
	if err != nil {
		g.mu.Lock()
		if g.failure == nil {
			g.failure = errorf(Aborted, "participant %d failed: %v", e.self, err)
		}
		g.mu.Unlock()
		for _, p := range g.pipes {
			p.r.CloseWithError(g.failure)
			p.w.CloseWithError(g.failure)
		}
		return
	}
	for k, p := range g.pipes {
		if k[0] == e.self || k[1] == e.self {
			p.r.CloseWithError(errors.New("participant ended"))
			p.w.CloseWithError(errors.New("participant ended"))
		}
	}
}

func (g *streamGroup) cause(err error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.failure != nil {
		return g.failure
	}
	return errorf(Aborted, "stream closed: %v", err)
}
