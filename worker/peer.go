package worker

import (
	"context"
	"io"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/worker/workerpb"
)

// chunkSize is the size of the messages ReadArray streams.
const chunkSize = 1 << 20

// maxGatherBytes bounds one Gather result, so a malformed request cannot make the
// worker allocate without limit.
const maxGatherBytes = 1 << 34

// peer serves the worker-to-worker protocol over the arrays of the worker's proxy
// sessions.
type peer struct {
	workerpb.UnimplementedPeerServer
	w *Server

	mu    sync.Mutex
	conns map[string]*grpc.ClientConn // other workers, by address

	fetched atomic.Int64 // bytes gathered from other workers
}

func (p *peer) ReadArray(req *workerpb.ReadArrayRequest, stream workerpb.Peer_ReadArrayServer) error {
	data, err := p.read(stream.Context(), req.GetArray())
	if err != nil {
		return rpc.ToStatus(err)
	}
	for len(data) > 0 {
		n := min(len(data), chunkSize)
		if err := stream.Send(&workerpb.ReadArrayChunk{Data: data[:n]}); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// read returns the dense contents of an array of one of this worker's sessions.
func (p *peer) read(ctx context.Context, ref *workerpb.ArrayRef) ([]byte, error) {
	a, err := p.w.proxy.SessionArray(ctx, ref.GetSessionId(), ref.GetHandle())
	if err != nil {
		return nil, err
	}
	n, err := a.Shape().ByteSize(a.DType())
	if err != nil {
		return nil, err
	}
	data := make([]byte, n)
	if err := a.CopyToHostBuffer(ctx, data, nil); err != nil {
		return nil, err
	}
	return data, nil
}

// fetch returns the dense contents of a piece, from this worker or from another.
func (p *peer) fetch(ctx context.Context, piece *workerpb.Piece, want int64) ([]byte, error) {
	var data []byte
	if piece.GetWorkerAddress() == "" {
		var err error
		if data, err = p.read(ctx, piece.GetArray()); err != nil {
			return nil, err
		}
	} else {
		conn, err := p.conn(piece.GetWorkerAddress())
		if err != nil {
			return nil, err
		}
		stream, err := workerpb.NewPeerClient(conn).ReadArray(ctx, &workerpb.ReadArrayRequest{Array: piece.GetArray()})
		if err != nil {
			return nil, rpc.FromStatus(err)
		}
		data = make([]byte, 0, want)
		for {
			chunk, err := stream.Recv()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, ifrt.Errorf(ifrt.CodeOf(rpc.FromStatus(err)), "worker: reading a piece from %s: %w", piece.GetWorkerAddress(), rpc.FromStatus(err))
			}
			if int64(len(data)+len(chunk.GetData())) > want {
				return nil, ifrt.Errorf(ifrt.DataLoss, "worker: %s sent more than the %d bytes of the piece", piece.GetWorkerAddress(), want)
			}
			data = append(data, chunk.GetData()...)
		}
	}
	if int64(len(data)) != want {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: a piece of domain %v holds %d bytes, not %d", piece.GetDomain(), len(data), want)
	}
	return data, nil
}

func (p *peer) conn(addr string) (*grpc.ClientConn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.conns[addr]; ok {
		return c, nil
	}
	c, err := grpc.NewClient(addr, p.w.dialOptions()...)
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
}

func (p *peer) Gather(ctx context.Context, req *workerpb.GatherRequest) (*workerpb.GatherResponse, error) {
	resp, err := p.gather(ctx, req)
	if err != nil {
		return nil, rpc.ToStatus(err)
	}
	return resp, nil
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
	if size > maxGatherBytes {
		return nil, ifrt.Errorf(ifrt.ResourceExhausted, "worker: a gather of %d bytes is over the %d-byte limit", size, int64(maxGatherBytes))
	}
	dev, err := p.w.cfg.Backend.LookupDevice(ifrt.DeviceID(req.GetDeviceId()))
	if err != nil {
		return nil, err
	}
	elem := dtype.HostByteSize()
	result := make([]byte, size)
	covered := int64(0)
	var remote int64
	for i, piece := range req.GetPieces() {
		dom, err := domainOf(piece.GetDomain())
		if err != nil {
			return nil, err
		}
		if len(dom) != len(target) {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: piece %d has rank %d, the result %d", i, len(dom), len(target))
		}
		overlap, ok := intersect(dom, target)
		if !ok {
			continue
		}
		pieceBytes, err := dom.Shape().ByteSize(dtype)
		if err != nil {
			return nil, err
		}
		data, err := p.fetch(ctx, piece, pieceBytes)
		if err != nil {
			return nil, err
		}
		if piece.GetWorkerAddress() != "" {
			remote += int64(len(data))
		}
		part := ifrt.ExtractDomain(data, elem, dom.Shape(), shift(overlap, dom))
		ifrt.InsertDomain(result, elem, shape, shift(overlap, target), part)
		covered += overlap.Shape().NumElements()
	}
	if covered < shape.NumElements() {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "worker: the pieces cover %d of the %d elements of the result", covered, shape.NumElements())
	}
	spec := ifrt.ArraySpec{DType: dtype, Shape: shape, Sharding: ifrt.NewSingleDeviceSharding(dev, ifrt.MemoryKind(req.GetMemoryKind()))}
	a, err := p.w.cfg.Backend.MakeArrayFromHostBuffer(ctx, result, spec, nil)
	if err != nil {
		return nil, err
	}
	ref := req.GetResult()
	if err := p.w.proxy.AddSessionArray(ref.GetSessionId(), ref.GetHandle(), a); err != nil {
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

// intersect returns the common part of a and b, and whether it holds any element.
func intersect(a, b ifrt.IndexDomain) (ifrt.IndexDomain, bool) {
	out := make(ifrt.IndexDomain, len(a))
	for i := range a {
		out[i] = ifrt.Range{Start: max(a[i].Start, b[i].Start), End: min(a[i].End, b[i].End)}
		if out[i].Start >= out[i].End {
			return nil, false
		}
	}
	return out, true
}

// shift expresses d relative to the origin of base.
func shift(d, base ifrt.IndexDomain) ifrt.IndexDomain {
	out := make(ifrt.IndexDomain, len(d))
	for i, r := range d {
		out[i] = ifrt.Range{Start: r.Start - base[i].Start, End: r.End - base[i].Start}
	}
	return out
}
