package communicatortest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/openpathways/pathways/internal/stablehlo"
)

// Pipes returns the Communicators of n participants connected by one byte
// stream per ordered pair (io.Pipe): the shape a network implementation
// takes, and a reference for one. Each message is a header (tag and size)
// followed by its bytes, read back in 3-byte pieces, so that receivers see
// chunk boundaries that split elements. A failure closes every stream with
// an Aborted error naming the participant that failed.
func Pipes(n int) []stablehlo.Communicator {
	g := &pipeGroup{pipes: map[[2]int]*pipe{}}
	for from := range n {
		for to := range n {
			if from != to {
				r, w := io.Pipe()
				g.pipes[[2]int{from, to}] = &pipe{r, w}
			}
		}
	}
	out := make([]stablehlo.Communicator, n)
	for i := range out {
		out[i] = &pipeEnd{g: g, self: i}
	}
	return out
}

type pipeGroup struct {
	pipes map[[2]int]*pipe

	mu      sync.Mutex
	failure error
}

type pipe struct {
	r *io.PipeReader
	w *io.PipeWriter
}

type pipeEnd struct {
	g    *pipeGroup
	self int
}

const (
	headerSize = 20
	writeChunk = 4093 // bytes per write, not a multiple of any element size
	readChunk  = 3
)

func (e *pipeEnd) Send(ctx context.Context, to int, tag stablehlo.Tag, data []byte) error {
	p := e.g.pipes[[2]int{e.self, to}]
	if p == nil {
		return stablehlo.NewError(stablehlo.Internal, fmt.Sprintf("participant %d has no stream to %d", e.self, to))
	}
	stop := context.AfterFunc(ctx, func() { p.w.CloseWithError(ctx.Err()) })
	defer stop()
	var hdr [headerSize]byte
	binary.LittleEndian.PutUint64(hdr[0:], tag.Collective)
	binary.LittleEndian.PutUint32(hdr[8:], tag.Message)
	binary.LittleEndian.PutUint64(hdr[12:], uint64(len(data)))
	if _, err := p.w.Write(hdr[:]); err != nil {
		return e.g.cause(ctx, err)
	}
	for len(data) > 0 {
		k := min(writeChunk, len(data))
		if _, err := p.w.Write(data[:k]); err != nil {
			return e.g.cause(ctx, err)
		}
		data = data[k:]
	}
	return nil
}

func (e *pipeEnd) Recv(ctx context.Context, from int, tag stablehlo.Tag, size int, w io.Writer) error {
	p := e.g.pipes[[2]int{from, e.self}]
	if p == nil {
		return stablehlo.NewError(stablehlo.Internal, fmt.Sprintf("participant %d has no stream from %d", e.self, from))
	}
	stop := context.AfterFunc(ctx, func() { p.r.CloseWithError(ctx.Err()) })
	defer stop()
	var hdr [headerSize]byte
	if _, err := io.ReadFull(p.r, hdr[:]); err != nil {
		return e.g.cause(ctx, err)
	}
	got := stablehlo.Tag{Collective: binary.LittleEndian.Uint64(hdr[0:]), Message: binary.LittleEndian.Uint32(hdr[8:])}
	n := binary.LittleEndian.Uint64(hdr[12:])
	if got != tag || n != uint64(size) {
		err := stablehlo.NewError(stablehlo.Aborted, fmt.Sprintf("participant %d received %s of %d bytes from participant %d, expected %s of %d bytes", e.self, got, n, from, tag, size))
		p.r.CloseWithError(err) // the stream's framing is lost
		return err
	}
	if _, err := io.CopyBuffer(w, io.LimitReader(p.r, int64(size)), make([]byte, readChunk)); err != nil {
		return e.g.cause(ctx, err)
	}
	return nil
}

// Done closes this participant's streams; a failure closes every stream,
// so that pending reads and writes anywhere return it.
func (e *pipeEnd) Done(err error) {
	g := e.g
	if err != nil {
		g.mu.Lock()
		if g.failure == nil {
			g.failure = stablehlo.NewError(stablehlo.Aborted, fmt.Sprintf("participant %d failed: %v", e.self, err))
		}
		failure := g.failure
		g.mu.Unlock()
		for _, p := range g.pipes {
			p.r.CloseWithError(failure)
			p.w.CloseWithError(failure)
		}
		return
	}
	ended := stablehlo.NewError(stablehlo.Aborted, fmt.Sprintf("participant %d ended", e.self))
	for k, p := range g.pipes {
		if k[0] == e.self || k[1] == e.self {
			p.r.CloseWithError(ended)
			p.w.CloseWithError(ended)
		}
	}
}

// cause names why a stream failed: the context's end, a participant's
// failure, or the error the stream was closed with.
func (g *pipeGroup) cause(ctx context.Context, err error) error {
	g.mu.Lock()
	failure := g.failure
	g.mu.Unlock()
	if failure != nil {
		return failure
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *stablehlo.Error
	if errors.As(err, &se) {
		return se
	}
	return stablehlo.NewError(stablehlo.Aborted, fmt.Sprintf("stream closed: %v", err))
}
