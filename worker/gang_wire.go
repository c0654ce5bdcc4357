package worker

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/worker/workerpb"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Exchange frames travel as rpc.BufferMessages: the bytes on the wire are an
// ExchangeFrame's, but a sent frame's data is written by the transport
// straight from the partition's memory, and a received frame's data stays
// in the transport's buffers until the receiving partition folds or copies
// it into its result. Each byte is copied once in each process besides the
// kernel's copies, instead of four times.

// smallFrameData is the data size under which a frame's data is copied
// next to its header: not worth tracking when the transport lets go of it.
const smallFrameData = 4 << 10

// outFrame is one ExchangeFrame to send. Its data must stay unchanged until
// its written counter says the transport let go of it.
type outFrame struct {
	launch   uint64
	from, to int32
	tag      stablehlo.Tag // on a message's first frame
	size     int64         // the message's size, on its first frame
	data     []byte
	shared   *workerpb.SharedRegion // instead of data
	written  *written
}

func (f *outFrame) MarshalBuffers() (mem.BufferSlice, error) {
	hdr := make([]byte, 0, 64)
	hdr = protowire.AppendTag(hdr, 1, protowire.Fixed64Type)
	hdr = protowire.AppendFixed64(hdr, f.launch)
	for _, v := range []struct {
		num protowire.Number
		val uint64
	}{{2, uint64(int64(f.from))}, {3, uint64(int64(f.to))}, {4, f.tag.Collective}, {5, uint64(f.tag.Message)}, {6, uint64(f.size)}} {
		if v.val != 0 { // proto3 leaves zero scalars out
			hdr = protowire.AppendTag(hdr, v.num, protowire.VarintType)
			hdr = protowire.AppendVarint(hdr, v.val)
		}
	}
	if f.shared != nil {
		region, err := proto.Marshal(f.shared)
		if err != nil {
			return nil, err
		}
		hdr = protowire.AppendTag(hdr, 8, protowire.BytesType)
		hdr = protowire.AppendBytes(hdr, region)
	}
	if len(f.data) == 0 {
		return mem.BufferSlice{mem.SliceBuffer(hdr)}, nil
	}
	hdr = protowire.AppendTag(hdr, 7, protowire.BytesType)
	hdr = protowire.AppendVarint(hdr, uint64(len(f.data)))
	if len(f.data) < smallFrameData {
		return mem.BufferSlice{mem.SliceBuffer(append(hdr, f.data...))}, nil
	}
	f.written.hold()
	return mem.BufferSlice{mem.SliceBuffer(hdr), mem.NewBuffer(&f.data, f.written)}, nil
}

func (*outFrame) UnmarshalBuffers(mem.BufferSlice) {}

func (*outFrame) DecodeFailure() error { return errors.New("an outgoing frame is never received") }

// written counts the frames of one message whose data the transport still
// holds. It is the mem.BufferPool of their data buffers: the transport
// "returns" a buffer when it has written it or dropped it.
type written struct {
	left atomic.Int64
	done chan struct{}
}

// newWritten returns a counter holding one reference for its sender, which
// release drops.
func newWritten() *written {
	w := &written{done: make(chan struct{})}
	w.left.Store(1)
	return w
}

func (w *written) hold() { w.left.Add(1) }

func (w *written) release() {
	if w.left.Add(-1) == 0 {
		close(w.done)
	}
}

func (w *written) Get(n int) *[]byte {
	b := make([]byte, n)
	return &b
}

func (w *written) Put(*[]byte) { w.release() }

// wait drops the sender's reference and returns when the transport let go
// of every frame, when failed is closed (then the failure, from cause), or
// when ctx ends.
func (w *written) wait(ctx context.Context, failed <-chan struct{}, cause func() error) error {
	w.release()
	select {
	case <-w.done:
		return nil
	case <-failed:
		return cause()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// inFrame is one received ExchangeFrame. Its data are views of the
// transport's buffers, which it holds until free.
type inFrame struct {
	launch   uint64
	from, to int32
	tag      stablehlo.Tag
	size     int64
	data     [][]byte
	bufs     mem.BufferSlice
	shared   *workerpb.SharedRegion // where data is, until attach
	release  func() error           // ends the use of a shared region
	err      error
}

// frameHeaderMax bounds the bytes before an ExchangeFrame's data as this
// package encodes it; a frame whose data does not start within it is
// decoded as a whole.
const frameHeaderMax = 256

func (f *inFrame) UnmarshalBuffers(data mem.BufferSlice) {
	*f = inFrame{}
	var prefix [frameHeaderMax]byte
	n := copyPrefix(prefix[:], data)
	if h, size, ok := f.parseHeader(prefix[:n], data.Len()); ok {
		if size > 0 {
			data.Ref()
			f.bufs = data
			f.data = viewsFrom(data, h)
		}
		return
	}
	// Any other valid encoding (fields in another order, unknown fields).
	var m workerpb.ExchangeFrame
	if err := proto.Unmarshal(data.Materialize(), &m); err != nil {
		f.err = err
		return
	}
	*f = inFrame{launch: m.GetLaunchId(), from: m.GetFrom(), to: m.GetTo(), size: m.GetSize(),
		tag: stablehlo.Tag{Collective: m.GetCollective(), Message: m.GetMessage()}, shared: m.GetShared()}
	if len(m.GetData()) > 0 {
		f.data = [][]byte{m.GetData()}
	}
}

// parseHeader reads the scalar fields of a frame from the start of its
// encoding, total bytes long, up to its data field, which must be last. It
// returns where the data starts and its size, or false when the frame is
// not laid out that way.
func (f *inFrame) parseHeader(b []byte, total int) (start, size int, ok bool) {
	off := 0
	for off < total {
		if off >= len(b) {
			return 0, 0, false
		}
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return 0, 0, false
		}
		off += n
		switch {
		case num == 1 && typ == protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b[off:])
			if n < 0 {
				return 0, 0, false
			}
			f.launch, off = v, off+n
		case num >= 2 && num <= 6 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b[off:])
			if n < 0 {
				return 0, 0, false
			}
			off += n
			switch num {
			case 2:
				f.from = int32(v)
			case 3:
				f.to = int32(v)
			case 4:
				f.tag.Collective = v
			case 5:
				f.tag.Message = uint32(v)
			case 6:
				f.size = int64(v)
			}
		case num == 8 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b[off:])
			if n < 0 || f.shared != nil {
				return 0, 0, false
			}
			f.shared = &workerpb.SharedRegion{}
			if proto.Unmarshal(v, f.shared) != nil {
				return 0, 0, false
			}
			off += n
		case num == 7 && typ == protowire.BytesType:
			v, n := protowire.ConsumeVarint(b[off:])
			if n < 0 || v != uint64(total-off-n) {
				return 0, 0, false
			}
			return off + n, int(v), true
		default:
			return 0, 0, false
		}
	}
	return off, 0, off == total
}

func (*inFrame) MarshalBuffers() (mem.BufferSlice, error) {
	return nil, errors.New("a received frame is never sent")
}

func (f *inFrame) DecodeFailure() error { return f.err }

// length is the size of the frame's data.
func (f *inFrame) length() int64 {
	n := 0
	for _, d := range f.data {
		n += len(d)
	}
	return int64(n)
}

// writeTo writes the frame's data to w.
func (f *inFrame) writeTo(w io.Writer) error {
	for _, d := range f.data {
		if _, err := w.Write(d); err != nil {
			return err
		}
	}
	return nil
}

// attach makes the bytes of a frame sent through shared memory the frame's
// data.
func (f *inFrame) attach(sm *sharedMemory) error {
	if f.shared == nil {
		return nil
	}
	if len(f.data) > 0 {
		return ifrt.Errorf(ifrt.InvalidArgument, "worker: an exchange frame carries data and a shared region")
	}
	view, release, err := sm.view(f.shared)
	if err != nil {
		return err
	}
	f.data, f.release, f.shared = [][]byte{view}, release, nil
	return nil
}

// consume writes the frame's data to w and frees it.
func (f *inFrame) consume(w io.Writer) error {
	err := f.writeTo(w)
	if ferr := f.free(); err == nil {
		err = ferr
	}
	return err
}

// free gives the transport's buffers or the shared region back; the
// frame's data is gone. It fails when a shared region was overwritten
// before it was freed.
func (f *inFrame) free() error {
	f.bufs.Free()
	f.bufs, f.data = nil, nil
	if r := f.release; r != nil {
		f.release = nil
		return r()
	}
	return nil
}

// copyPrefix copies the first bytes of data into p and returns how many.
func copyPrefix(p []byte, data mem.BufferSlice) int {
	n := 0
	for _, b := range data {
		if n == len(p) {
			break
		}
		n += copy(p[n:], b.ReadOnlyData())
	}
	return n
}

// viewsFrom returns views of data's bytes from offset off on.
func viewsFrom(data mem.BufferSlice, off int) [][]byte {
	views := make([][]byte, 0, len(data))
	for _, b := range data {
		d := b.ReadOnlyData()
		if off >= len(d) {
			off -= len(d)
			continue
		}
		views = append(views, d[off:])
		off = 0
	}
	return views
}

// sendFrames sends one message of partition e.self to partition to of
// another worker over o, in frames: through shared memory where the peer
// can map this worker's segments, else over the connection straight from
// data. o.mu is held.
func (e *gangEndpoint) sendFrames(ctx context.Context, o *outStream, to int, tag stablehlo.Tag, data []byte) error {
	l := e.l
	sm := l.w.peer.shm
	shared := len(data) >= smallFrameData && sm.probe(ctx, l.w.peer, l.workers[to]).mapsMine
	wr := newWritten()
	first := true
	for first || len(data) > 0 {
		n := min(len(data), exchangeChunk)
		fr := &outFrame{launch: l.id, from: int32(e.self), to: int32(to), written: wr}
		if first {
			fr.tag, fr.size = tag, int64(len(data))
		}
		if shared && n > 0 {
			// A segment holds more than a frame over the connection may.
			m := min(len(data), segmentData)
			if fr.shared = sm.take(data[:m]); fr.shared != nil {
				n = m
			}
		}
		if fr.shared == nil {
			fr.data = data[:n]
		}
		if err := o.stream.SendMsg(fr); err != nil {
			if fr.shared != nil {
				sm.untake(fr.shared)
			}
			sm.forget(l.workers[to])
			o.err = err
			if c := l.cause(); c != nil {
				return c
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return l.lost(to, rpc.FromStatus(err))
		}
		data, first = data[n:], false
		l.mu.Lock()
		l.sent += int64(n)
		l.mu.Unlock()
	}
	// The transport writes frames from data after SendMsg returns.
	return wr.wait(ctx, l.failed, l.cause)
}
