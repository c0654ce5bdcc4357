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
		l = &gangLaunch{id: id, boxes: map[[2]int]*mailbox{}, failed: make(chan struct{})}
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
				l.drain()
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
		l.drain()
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
// receiver runs here, the streams to other workers (one a worker, carrying
// every pair between the two), and the launch's fate.
type gangLaunch struct {
	id uint64

	refs     int         // guarded by launches.mu
	launched atomic.Bool // its Launch call arrived

	mu      sync.Mutex
	boxes   map[[2]int]*mailbox // by (from, to)
	w       *Server
	workers []string
	local   map[int]bool
	out     map[string]*outStream // by worker address
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
	l.w, l.workers, l.local, l.out = w, workers, local, map[string]*outStream{}
	return nil
}

func (l *gangLaunch) box(from, to int) *mailbox {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := [2]int{from, to}
	b := l.boxes[k]
	if b == nil {
		b = newMailbox()
		l.boxes[k] = b
	}
	return b
}

// drain frees what the launch's mailboxes still hold once nothing reads
// them.
func (l *gangLaunch) drain() {
	l.mu.Lock()
	boxes := make([]*mailbox, 0, len(l.boxes))
	for _, b := range l.boxes {
		boxes = append(boxes, b)
	}
	l.mu.Unlock()
	for _, b := range boxes {
		b.drain()
	}
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

// stream returns the open stream to the worker of partition to, opening it
// on first use. Opening a stream costs about what sending a small message
// does, so the partitions of this worker share one a peer worker.
func (l *gangLaunch) stream(to int) (*outStream, error) {
	l.mu.Lock()
	addr := l.workers[to]
	o := l.out[addr]
	if o == nil {
		o = &outStream{}
		l.out[addr] = o
	}
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
		l.box(e.self, to).put(f)
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
	o, err := l.stream(to)
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
		f, ok, err := box.next(ctx, l.failed, l.cause)
		if err != nil {
			return err
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

// Exchange takes the frames the partitions of another worker send the
// partitions of this worker in one launch and hands each to its pair's
// mailbox, in order.
func (g *gang) Exchange(stream workerpb.Gang_ExchangeServer) error {
	defer g.w.proxy.Track()()
	f := &inFrame{}
	if err := stream.RecvMsg(f); err != nil {
		return err
	}
	launch := f.launch
	l := g.launches.join(launch, true)
	defer g.launches.leave(l)
	fed := map[[2]int32]*mailbox{}
	defer func() {
		// The receivers of these pairs see a stream that ended early.
		for _, b := range fed {
			b.end()
		}
	}()
	for {
		if f.launch != launch {
			_ = f.free()
			return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: one exchange stream carries one launch"))
		}
		if f.from < 0 || f.to < 0 || f.from > 1<<16 || f.to > 1<<16 {
			_ = f.free()
			return rpc.ToStatus(ifrt.Errorf(ifrt.InvalidArgument, "worker: exchange between partitions %d and %d", f.from, f.to))
		}
		if err := f.attach(g.w.peer.shm); err != nil {
			_ = f.free()
			return rpc.ToStatus(err)
		}
		pair := [2]int32{f.from, f.to}
		box := fed[pair]
		if box == nil {
			box = l.box(int(f.from), int(f.to))
			fed[pair] = box
		}
		box.put(&frame{tag: f.tag, size: f.size, remote: f})
		select {
		case <-l.failed:
			return rpc.ToStatus(l.cause())
		default:
		}
		f = &inFrame{}
		if err := stream.RecvMsg(f); err == io.EOF {
			return stream.SendAndClose(&workerpb.ExchangeResponse{})
		} else if err != nil {
			return err
		}
	}
}
