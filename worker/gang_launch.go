package worker

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/worker/workerpb"
	"google.golang.org/grpc"
)

// exchangeChunk is the largest data of one ExchangeFrame over the
// connection: 1 MiB less room for the frame's other fields, within grpc-go's
// largest pooled buffer (1 MiB), which the proto codec encoded frames into
// before frames became BufferMessages (gang_wire.go). Frames in shared memory
// hold up to segmentData.
const exchangeChunk = 1<<20 - 128

// orphanTimeout is how long a launch that peers sent data for waits for its
// own Launch call before the data is dropped.
const orphanTimeout = time.Minute

// boxDepth is how many frames a pair buffers before its sender waits.
const boxDepth = 8

// launches holds the launches this worker takes part in, by launch id. A
// launch is made by its Launch call or by the first Exchange stream of a peer
// that started earlier, whichever comes first.
type launches struct {
	mu   sync.Mutex
	byID map[uint64]*gangLaunch
}

func newLaunches() *launches { return &launches{byID: map[uint64]*gangLaunch{}} }

// join returns launch id, made if new, and holds it until leave. A peer's
// stream (byPeer) may make it before its own Launch call arrives.
func (ls *launches) join(id uint64, byPeer bool) *gangLaunch {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l := ls.byID[id]
	if l == nil {
		l = &gangLaunch{id: id, boxes: map[[2]int]chan *frame{}, failed: make(chan struct{})}
		ls.byID[id] = l
	}
	if byPeer && !l.launched.Load() && l.refs == 0 {
		// Data for a launch whose Launch never comes (its client gave up) is
		// dropped after a while.
		time.AfterFunc(orphanTimeout, func() {
			ls.mu.Lock()
			defer ls.mu.Unlock()
			if l.refs == 0 && !l.launched.Load() && ls.byID[id] == l {
				delete(ls.byID, id)
				l.fail(ifrt.Errorf(ifrt.DeadlineExceeded, "worker: launch %x never started here", id))
			}
		})
	}
	l.refs++
	return l
}

func (ls *launches) leave(l *gangLaunch) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l.refs--
	if l.refs == 0 && l.launched.Load() && ls.byID[l.id] == l {
		delete(ls.byID, l.id)
	}
}

// frame is one piece of a message between two partitions. Frames of a
// partition of this worker carry the whole message and a consumed channel
// the receiver closes (the sender's memory is handed over, not copied);
// frames from another worker carry what arrived (remote).
type frame struct {
	tag      stablehlo.Tag
	size     int64
	data     []byte
	remote   *inFrame
	consumed chan struct{}
	// claimed is set by the first of the receiver taking the frame and its
	// sender withdrawing it (its launch ended before the receiver took it).
	claimed atomic.Bool
}

// take claims the frame for its receiver, false when its sender withdrew it.
func (f *frame) take() bool { return f.consumed == nil || f.claimed.CompareAndSwap(false, true) }

// gangLaunch is one launch on this worker: the mailboxes of the pairs whose
// receiver runs here, the streams to other workers, and the launch's fate.
type gangLaunch struct {
	id uint64

	refs     int         // guarded by launches.mu
	launched atomic.Bool // its Launch call arrived

	mu      sync.Mutex
	boxes   map[[2]int]chan *frame // by (from, to)
	w       *Server
	workers []string
	local   map[int]bool
	out     map[[2]int]*outStream
	sent    int64
	failed  chan struct{}
	failure error
}

type outStream struct {
	mu     sync.Mutex
	stream workerpb.Gang_ExchangeClient
	cancel context.CancelFunc
	err    error
}

// start gives the launch its Launch call's description; a second Launch
// of the same launch id is refused.
func (l *gangLaunch) start(w *Server, workers []string, local map[int]bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.launched.Swap(true) {
		return ifrt.Errorf(ifrt.AlreadyExists, "worker: launch %x is already running here", l.id)
	}
	l.w, l.workers, l.local, l.out = w, workers, local, map[[2]int]*outStream{}
	return nil
}

func (l *gangLaunch) box(from, to int) chan *frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]int{from, to}
	b := l.boxes[k]
	if b == nil {
		b = make(chan *frame, boxDepth)
		l.boxes[k] = b
	}
	return b
}

// fail ends the launch on this worker with err, the first failure winning.
func (l *gangLaunch) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failure == nil {
		l.failure = err
		close(l.failed)
	}
}

// cause is what failed the launch, nil while it has not.
func (l *gangLaunch) cause() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failure
}

// endpoint is partition p's Communicator.
func (l *gangLaunch) endpoint(ctx context.Context, p int) stablehlo.Communicator {
	return &gangEndpoint{l: l, self: p, ctx: ctx}
}

// closeStreams ends the streams to other workers, waiting for their
// receivers to take everything, and returns the bytes sent.
func (l *gangLaunch) closeStreams() (int64, error) {
	l.mu.Lock()
	outs := make([]*outStream, 0, len(l.out))
	for _, o := range l.out {
		outs = append(outs, o)
	}
	l.mu.Unlock()
	var errs []error
	for _, o := range outs {
		o.mu.Lock()
		if o.stream != nil && o.err == nil {
			if _, err := o.stream.CloseAndRecv(); err != nil {
				errs = append(errs, rpc.FromStatus(err))
			}
		}
		if o.cancel != nil {
			o.cancel()
		}
		o.mu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sent, errors.Join(errs...)
}

// stream returns the open stream from partition from to partition to on
// another worker, opening it on first use.
func (l *gangLaunch) stream(from, to int) (*outStream, error) {
	l.mu.Lock()
	k := [2]int{from, to}
	o := l.out[k]
	if o == nil {
		o = &outStream{}
		l.out[k] = o
	}
	addr := l.workers[to]
	l.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.stream != nil || o.err != nil {
		return o, o.err
	}
	// The stream lives as long as the launch, not as the first Send's call.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-l.failed:
		case <-l.w.stopped():
		case <-ctx.Done():
		}
		cancel()
	}()
	o.cancel = cancel
	if err := l.w.peer.members.check(ctx, addr); err != nil {
		o.err = err
		return o, err
	}
	conn, err := l.w.peer.conn(addr)
	if err != nil {
		o.err = err
		return o, err
	}
	// grpc-go holds what a stream sends for a transparent retry until the
	// stream commits (a response, or 256 KiB sent): frames whose data the
	// sender waits to get back (written) would never be let go. A stream
	// without retry buffer commits on its first message.
	if o.stream, err = workerpb.NewGangClient(conn).Exchange(ctx, grpc.ForceCodecV2(rpc.BufferCodec()), grpc.MaxRetryRPCBufferSize(0)); err != nil {
		o.err = ifrt.Errorf(ifrt.DataLoss, "worker: partition %d on %s cannot be reached: %w", to, addr, rpc.FromStatus(err))
	}
	return o, o.err
}

// lost fails the launch because the worker of partition p is gone.
func (l *gangLaunch) lost(p int, err error) error {
	l.mu.Lock()
	addr := l.workers[p]
	l.mu.Unlock()
	e := ifrt.Errorf(ifrt.DataLoss, "worker: launch %x: the worker of partition %d (%s) was lost: %v", l.id, p, addr, err)
	l.fail(e)
	return l.cause()
}

type gangEndpoint struct {
	l    *gangLaunch
	self int
	ctx  context.Context
}

func (e *gangEndpoint) check(peer int) error {
	if peer < 0 || peer >= len(e.l.workers) || peer == e.self {
		return ifrt.Errorf(ifrt.Internal, "worker: partition %d cannot exchange with partition %d of %d", e.self, peer, len(e.l.workers))
	}
	return nil
}

func (e *gangEndpoint) Send(ctx context.Context, to int, tag stablehlo.Tag, data []byte) error {
	if err := e.check(to); err != nil {
		return err
	}
	l := e.l
	if l.local[to] {
		f := &frame{tag: tag, size: int64(len(data)), data: data, consumed: make(chan struct{})}
		select {
		case l.box(e.self, to) <- f:
		case <-l.failed:
			return l.cause()
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-f.consumed:
			return nil
		case <-l.failed:
		case <-ctx.Done():
		}
		if !f.claimed.CompareAndSwap(false, true) {
			// The receiver took it and may still be writing from data: wait
			// for it, it ends soon now.
			<-f.consumed
		}
		if c := l.cause(); c != nil {
			return c
		}
		return ctx.Err()
	}
	o, err := l.stream(e.self, to)
	if err != nil {
		return l.lost(to, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return e.sendFrames(ctx, o, to, tag, data)
}

func (e *gangEndpoint) Recv(ctx context.Context, from int, tag stablehlo.Tag, size int, w io.Writer) error {
	if err := e.check(from); err != nil {
		return err
	}
	l := e.l
	box := l.box(from, e.self)
	got := int64(0)
	for first := true; first || got < int64(size); first = false {
		var f *frame
		var ok bool
		select {
		case f, ok = <-box:
		case <-l.failed:
			return l.cause()
		case <-ctx.Done():
			return ctx.Err()
		}
		if !ok {
			return l.lost(from, errors.New("its stream ended in the middle of the launch"))
		}
		if !f.take() {
			if c := l.cause(); c != nil {
				return c
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return ifrt.Errorf(ifrt.Aborted, "worker: partition %d withdrew its message to partition %d", from, e.self)
		}
		if first && (f.tag != tag || f.size != int64(size)) {
			err := ifrt.Errorf(ifrt.Aborted, "worker: partition %d received %s of %d bytes from partition %d, expected %s of %d bytes: the partitions' programs disagree on their collectives",
				e.self, f.tag, f.size, from, tag, size)
			if f.consumed != nil {
				close(f.consumed)
			}
			l.fail(err)
			return err
		}
		n, err := int64(len(f.data)), error(nil)
		if f.remote != nil {
			n = f.remote.length()
		}
		if got+n > int64(size) {
			return l.lost(from, errors.New("it sent more than the message holds"))
		}
		if f.remote != nil {
			err = f.remote.consume(w)
		} else {
			_, err = w.Write(f.data)
		}
		got += n
		if f.consumed != nil {
			close(f.consumed)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Done ends the launch here when the partition failed, with the
// partition's own code (RESOURCE_EXHAUSTED, say): the partitions that fail
// because of it echo it as ABORTED, and the client reports the original.
func (e *gangEndpoint) Done(err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		e.l.fail(ifrt.Errorf(ifrt.CodeOf(err), "worker: launch %x: partition %d failed: %w", e.l.id, e.self, err))
	}
}

// Exchange takes the frames one partition of another worker sends one
// partition of this worker and hands them to the receiver, in order.
func (g *gang) Exchange(stream workerpb.Gang_ExchangeServer) error {
	defer g.w.proxy.Track()()
	first := &inFrame{}
	if err := stream.RecvMsg(first); err != nil {
		return err
	}
	l := g.launches.join(first.launch, true)
	defer g.launches.leave(l)
	from, to := int(first.from), int(first.to)
	if from < 0 || to < 0 || from > 1<<16 || to > 1<<16 {
		return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: exchange between partitions %d and %d", from, to))
	}
	box := l.box(from, to)
	defer close(box) // the receiver sees a stream that ends early
	f := first
	for {
		if f.from != first.from || f.to != first.to || f.launch != first.launch {
			return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: one exchange stream carries one pair of one launch"))
		}
		if err := f.attach(g.w.peer.shm); err != nil {
			return rpc.ToStatus(err)
		}
		fr := &frame{tag: f.tag, size: f.size, remote: f}
		select {
		case box <- fr:
		case <-l.failed:
			return rpc.ToStatus(l.cause())
		case <-stream.Context().Done():
			return stream.Context().Err()
		}
		f = &inFrame{}
		if err := stream.RecvMsg(f); err == io.EOF {
			return stream.SendAndClose(&workerpb.ExchangeResponse{})
		} else if err != nil {
			return err
		}
	}
}
