package worker

import (
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// chunkSize is the size of the messages ReadArray streams.
const chunkSize = 1 << 20

// peer serves the worker-to-worker protocol over the arrays of the worker's proxy
// sessions. Every array is reached through its session's token, and a Gather
// reads from no worker but those the RM lists, and from each only the part of a
// piece that the result needs.
type peer struct {
	workerpb.UnimplementedPeerServer
	w       *Server
	members *members

	mu    sync.Mutex
	conns map[string]*grpc.ClientConn // other workers, by address

	fetched atomic.Int64 // bytes gathered from other workers

	shm *sharedMemory // for peers on this host (shm.go)
}

func newPeer(w *Server) *peer {
	return &peer{w: w, members: &members{w: w}, conns: map[string]*grpc.ClientConn{}, shm: newSharedMemory()}
}

func (p *peer) ProbeSharedMemory(_ context.Context, req *workerpb.SharedMemoryProbe) (*workerpb.SharedMemoryProbeResult, error) {
	return p.shm.answer(req, func(err error) { p.w.log.Debug("no shared memory for peers", "error", err) }), nil
}

func (p *peer) ReadArray(req *workerpb.ReadArrayRequest, stream workerpb.Peer_ReadArrayServer) error {
	defer p.w.proxy.Track()()
	start := time.Now()
	data, err := p.read(stream.Context(), req.GetArray(), req.GetRegion())
	p.w.record("peer", "Peer/ReadArray", start, err)
	if err != nil {
		return rpc.ToStatus(err)
	}
	shared := req.GetSharedMemory() && p.shm.dir != ""
	for len(data) > 0 {
		n := min(len(data), chunkSize)
		out := &chunkOut{data: data[:n]}
		if shared {
			// A segment holds more than a chunk over the connection may.
			m := min(len(data), segmentData)
			if out.shared = p.shm.take(data[:m]); out.shared != nil {
				n, out.data = m, nil
			}
		}
		if err := stream.SendMsg(out); err != nil {
			if out.shared != nil {
				p.shm.untake(out.shared)
			}
			return err
		}
		data = data[n:]
	}
	return nil
}

// read returns the dense contents of region (nil: all) of an array of one of
// this worker's sessions.
func (p *peer) read(ctx context.Context, ref *workerpb.ArrayRef, region *workerpb.Domain) ([]byte, error) {
	a, err := p.array(ctx, ref)
	if err != nil {
		return nil, err
	}
	return contents(ctx, a, region)
}

func (p *peer) array(ctx context.Context, ref *workerpb.ArrayRef) (ifrt.Array, error) {
	return p.w.proxy.SessionArray(ctx, ref.GetSessionId(), ref.GetSessionToken(), ref.GetHandle(), ref.GetAfterOpId())
}

// contents returns the dense contents of region (nil: all) of a. They may be
// the array's own memory (ifrt.HostBytes), which the caller must not change.
func contents(ctx context.Context, a ifrt.Array, region *workerpb.Domain) ([]byte, error) {
	shape := a.Shape()
	var dom ifrt.IndexDomain
	if region != nil {
		var err error
		if dom, err = domainOf(region); err != nil {
			return nil, err
		}
		if !within(dom, shape) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: region %v is outside the array's shape %v", dom, shape)
		}
	}
	data, lent, err := ifrt.HostBytes(a)
	if err != nil {
		return nil, err
	}
	if !lent {
		n, err := shape.ByteSize(a.DType())
		if err != nil {
			return nil, err
		}
		data = make([]byte, n)
		if err := a.CopyToHostBuffer(ctx, data, nil); err != nil {
			return nil, err
		}
	}
	if dom == nil {
		return data, nil
	}
	elem := a.DType().HostByteSize()
	if off, n, ok := ifrt.DomainRange(elem, shape, dom); ok {
		return data[off : off+n : off+n], nil // the whole array or rows of it
	}
	return ifrt.ExtractDomain(data, elem, shape, dom), nil
}

// within reports whether d lies inside an array of the given shape.
func within(d ifrt.IndexDomain, shape ifrt.Shape) bool {
	if len(d) != len(shape) {
		return false
	}
	for i, r := range d {
		if r.End > shape[i] {
			return false
		}
	}
	return true
}

// fetch returns the dense contents of the part overlap of a piece (both in the
// global array's coordinates), from this worker or from another; want is its
// size. The contents go into dst when it is not nil.
func (p *peer) fetch(ctx context.Context, piece *workerpb.Piece, dom, overlap ifrt.IndexDomain, want int64, dst []byte) ([]byte, error) {
	region := wireDomain(backend.Shift(overlap, dom))
	addr := piece.GetWorkerAddress()
	var data []byte
	if addr == "" {
		a, err := p.array(ctx, piece.GetArray())
		if err != nil {
			return nil, err
		}
		if !a.Shape().Equal(dom.Shape()) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: a piece says it holds %v, a region of shape %v, but its array has shape %v", dom, dom.Shape(), a.Shape())
		}
		if data, err = contents(ctx, a, region); err != nil {
			return nil, err
		}
		if dst != nil && int64(len(data)) == want {
			data = dst[:ifrt.CopyBytes(dst, data)]
		}
	} else {
		if err := p.members.check(ctx, addr); err != nil {
			return nil, err
		}
		conn, err := p.conn(addr)
		if err != nil {
			return nil, err
		}
		// Through shared memory where this worker maps the peer's segments.
		req := &workerpb.ReadArrayRequest{Array: piece.GetArray(), Region: region, SharedMemory: p.shm.probe(ctx, p, addr).mapsTheirs}
		stream, err := workerpb.NewPeerClient(conn).ReadArray(ctx, req, grpc.ForceCodecV2(rpc.BufferCodec()))
		if err != nil {
			return nil, rpc.FromStatus(err)
		}
		if dst == nil {
			dst = make([]byte, want)
		}
		in := &chunkIn{dst: dst}
		for {
			err := stream.RecvMsg(in)
			if err == io.EOF {
				break
			}
			if err != nil {
				p.shm.forget(addr)
				return nil, ifrt.Errorf(ifrt.CodeOf(rpc.FromStatus(err)), "worker: reading a piece from %s: %w", addr, rpc.FromStatus(err))
			}
			if in.err == nil && in.shared != nil {
				in.err = p.copyShared(in)
			}
			if in.err != nil {
				p.shm.forget(addr)
				return nil, in.err
			}
		}
		data = dst[:in.off]
	}
	if int64(len(data)) != want {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: the part %v of a piece holds %d bytes, not %d", overlap, len(data), want)
	}
	return data, nil
}

// copyShared copies the shared region a chunk named into its destination.
func (p *peer) copyShared(in *chunkIn) error {
	view, release, err := p.shm.view(in.shared)
	if err != nil {
		return err
	}
	if len(view) > len(in.dst)-in.off {
		_ = release()
		return ifrt.Errorf(ifrt.DataLoss, "worker: the peer sent more than the %d bytes of the piece", len(in.dst))
	}
	in.off += copy(in.dst[in.off:], view)
	return release()
}

func (p *peer) conn(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conns == nil {
		return nil, ifrt.Errorf(ifrt.Unavailable, "worker: the worker is stopping")
	}
	if c, ok := p.conns[addr]; ok {
		return c, nil
	}
	// Peers move array bytes: the transport sized for them (rpc.TransportDialOptions).
	c, err := grpc.NewClient(addr, append(rpc.TransportDialOptions(), p.w.dialOptions()...)...)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Unavailable, "worker: dial peer %s: %w", addr, err)
	}
	p.conns[addr] = c
	return c, nil
}

func (p *peer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
	p.shm.close()
}

func (p *peer) Gather(ctx context.Context, req *workerpb.GatherRequest) (*workerpb.GatherResponse, error) {
	return unary(ctx, p.w, "peer", "Peer/Gather", req, p.gather)
}

func (p *peer) gather(ctx context.Context, req *workerpb.GatherRequest) (*workerpb.GatherResponse, error) {
	dtype := ifrt.DType(req.GetDtype())
	if !dtype.Valid() || dtype.HostByteSize() == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: gather of invalid dtype %d", req.GetDtype())
	}
	target, err := domainOf(req.GetDomain())
	if err != nil {
		return nil, err
	}
	shape := target.Shape()
	size, err := shape.ByteSize(dtype)
	if err != nil {
		return nil, err
	}
	if limit := p.w.cfg.MaxGatherBytes; size > limit {
		return nil, ifrt.Errorf(ifrt.ResourceExhausted, "worker: a gather of %d bytes is over the %d-byte limit", size, limit)
	}
	dev, err := p.w.cfg.Backend.LookupDevice(ifrt.DeviceID(req.GetDeviceId()))
	if err != nil {
		return nil, err
	}
	// The parts to read: only where a piece overlaps the result, so that no
	// piece costs more than the result.
	type part struct {
		piece       *workerpb.Piece
		dom, inside ifrt.IndexDomain
	}
	var parts []part
	covered := int64(0)
	for i, piece := range req.GetPieces() {
		dom, err := domainOf(piece.GetDomain())
		if err != nil {
			return nil, err
		}
		if len(dom) != len(target) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: piece %d has rank %d, the result %d", i, len(dom), len(target))
		}
		if overlap, ok := backend.Intersect(dom, target); ok {
			parts = append(parts, part{piece, dom, overlap})
			covered += overlap.Shape().NumElements()
		}
	}
	if covered < shape.NumElements() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: the pieces cover %d of the %d elements of the result", covered, shape.NumElements())
	}
	ref := req.GetResult()
	if err := p.w.proxy.CheckSessionBytes(ref.GetSessionId(), ref.GetSessionToken(), size); err != nil {
		return nil, err
	}
	elem := dtype.HostByteSize()
	result := make([]byte, size)
	// The parts stream in parallel; one that is a contiguous run of the
	// result (the whole of it, or whole rows) goes straight into it, unless
	// it overlaps one that does (replicas): that one's bytes are put in
	// after both have arrived.
	inPlace := make([]bool, len(parts))
	datas := make([][]byte, len(parts))
	errs := make([]error, len(parts))
	var wg sync.WaitGroup
	for i, pt := range parts {
		var dst []byte
		off, n, ok := ifrt.DomainRange(elem, shape, backend.Shift(pt.inside, target))
		for j := range i {
			if _, overlap := backend.Intersect(pt.inside, parts[j].inside); overlap && inPlace[j] {
				ok = false
			}
		}
		if ok {
			dst, inPlace[i] = result[off:off+n:off+n], true
		}
		wg.Go(func() {
			datas[i], errs[i] = p.fetch(ctx, pt.piece, pt.dom, pt.inside, pt.inside.Shape().NumElements()*int64(elem), dst)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	var remote int64
	for i, pt := range parts {
		if pt.piece.GetWorkerAddress() != "" {
			remote += int64(len(datas[i]))
		}
		if !inPlace[i] {
			ifrt.InsertDomain(result, elem, shape, backend.Shift(pt.inside, target), datas[i])
		}
	}
	spec := ifrt.ArraySpec{DType: dtype, Shape: shape, Sharding: ifrt.NewSingleDeviceSharding(dev, ifrt.MemoryKind(req.GetMemoryKind()))}
	// result is ours and nothing writes to it again: the backend may keep
	// it as the array's memory instead of copying it.
	a, err := p.w.cfg.Backend.MakeArrayFromHostBuffer(ctx, result, spec, &ifrt.HostBufferOptions{Semantics: ifrt.ImmutableZeroCopy})
	if err != nil {
		return nil, err
	}
	if err := p.w.proxy.AddSessionArray(ref.GetSessionId(), ref.GetSessionToken(), ref.GetHandle(), a); err != nil {
		a.Delete()
		return nil, err
	}
	p.fetched.Add(remote)
	return &workerpb.GatherResponse{RemoteBytes: remote}, nil
}

func domainOf(d *workerpb.Domain) (ifrt.IndexDomain, error) {
	if len(d.GetOrigin()) != len(d.GetShape()) {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: domain has %d origins for %d dimensions", len(d.GetOrigin()), len(d.GetShape()))
	}
	out := make(ifrt.IndexDomain, len(d.GetShape()))
	for i, n := range d.GetShape() {
		o := d.GetOrigin()[i]
		if n < 0 || o < 0 || o > 1<<62-n {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: domain dimension %d has origin %d and extent %d", i, o, n)
		}
		out[i] = ifrt.Range{Start: o, End: o + n}
	}
	if err := out.Shape().Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

func wireDomain(d ifrt.IndexDomain) *workerpb.Domain {
	w := &workerpb.Domain{Origin: make([]int64, len(d)), Shape: make([]int64, len(d))}
	for i, r := range d {
		w.Origin[i], w.Shape[i] = r.Start, r.Len()
	}
	return w
}
