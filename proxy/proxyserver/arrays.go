package proxyserver

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// hostShard is one host buffer of MakeArraysFromHostBufferShards.
type hostShard struct {
	handle  uint64
	dtype   ifrt.DType
	shape   ifrt.Shape
	strides []int64
	size    int64
	indices []int64
}

type shardedSpec struct {
	spec    ifrt.ArraySpec
	domains []ifrt.IndexDomain
	shards  []hostShard
}

func (s *session) assemble(o *op, r *proxypb.AssembleArrayFromSingleDeviceArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, sem, err := s.reserveDerived(o, wanted(r.GetResultHandle()), 1, r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	h := hs[0]
	if _, err := wire.ShardSemanticsFromProto(r.SingleDeviceShardSemantics); err != nil {
		return nil, nil, err
	}
	shape, err := wire.ShapeFromProto(r.GetShape())
	if err != nil {
		return nil, nil, err
	}
	sharding, err := wire.ShardingFromProto(r.GetSharding(), s.lookup)
	if err != nil {
		return nil, nil, err
	}
	dtype := ifrt.InvalidDType
	if r.Dtype != nil {
		if dtype, err = wire.DTypeFromProto(r.Dtype); err != nil {
			return nil, nil, err
		}
	}
	if len(r.GetSingleDeviceArrayHandles()) == 0 && dtype == ifrt.InvalidDType {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "AssembleArrayFromSingleDeviceArrays without arrays needs a dtype")
	}
	return s.onArrays(o, r.GetSingleDeviceArrayHandles(), consumeIf(sem == ifrt.DonateInput), func(ctx context.Context, parts []ifrt.Array) (*proxypb.IfrtResponse, error) {
		spec := ifrt.ArraySpec{DType: dtype, Shape: shape, Sharding: sharding}
		if spec.DType == ifrt.InvalidDType {
			spec.DType = parts[0].DType()
		}
		a, err := s.backend.AssembleArray(ctx, spec, parts, sem)
		if err != nil {
			return nil, err
		}
		if err := s.produced(o, []ifrt.Array{a}); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_AssembleArrayFromSingleDeviceArraysResponse{
			AssembleArrayFromSingleDeviceArraysResponse: &proxypb.AssembleArrayFromSingleDeviceArraysResponse{ArrayHandle: h}}}, nil
	})
}

func (s *session) disassemble(o *op, r *proxypb.DisassembleIntoSingleDeviceArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	clientHandles := len(r.GetResultHandles()) > 0
	if clientHandles {
		if _, err := s.reserveArrays(o, r.GetResultHandles(), -1); err != nil {
			return nil, nil, err
		}
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	if _, err := wire.ShardSemanticsFromProto(r.SingleDeviceShardSemantics); err != nil {
		return nil, nil, err
	}
	return s.onArrays(o, []uint64{r.GetArrayHandle()}, consumeIf(sem == ifrt.DonateInput), func(ctx context.Context, in []ifrt.Array) (*proxypb.IfrtResponse, error) {
		parts, err := s.backend.DisassembleArray(ctx, in[0], sem)
		if err != nil {
			return nil, err
		}
		hs := r.GetResultHandles()
		if !clientHandles {
			if hs, err = s.reserveArrays(o, nil, len(parts)); err != nil {
				return nil, err
			}
		}
		if err := s.produced(o, parts); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DisassembleIntoSingleDeviceArraysResponse{
			DisassembleIntoSingleDeviceArraysResponse: &proxypb.DisassembleIntoSingleDeviceArraysResponse{ArrayHandles: handlesOf(hs)}}}, nil
	})
}

func (s *session) copyToHostBuffer(o *op, r *proxypb.CopyToHostBufferRequest) (*proxypb.IfrtResponse, runFunc, error) {
	if err := checkClientHandle(r.GetHostBufferHandle()); err != nil {
		return nil, nil, err
	}
	strides := wire.ByteStridesFromProto(r.GetByteStrides())
	return s.onArrays(o, []uint64{r.GetArrayHandle()}, nil, func(ctx context.Context, in []ifrt.Array) (*proxypb.IfrtResponse, error) {
		a := in[0]
		if a.DType() == ifrt.STRING {
			return s.copyContentToHostBuffer(ctx, r.GetHostBufferHandle(), a)
		}
		size, err := ifrt.StridedRegionSize(a.DType(), a.Shape(), strides)
		if err != nil {
			return nil, err
		}
		// The server allocates this buffer, so strides may order the array's
		// elements but not spread them out: no gaps.
		if dense, _ := a.Shape().ByteSize(a.DType()); size > dense {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "byte strides %v lay out %v%v over %d bytes, more than its %d; the strides of a host buffer the server makes may not leave gaps", strides, a.DType(), a.Shape(), size, dense)
		}
		if err := s.checkBufferSize(size); err != nil {
			return nil, err
		}
		res, err := reserveAll(size, s.hostBytes, s.srv.hostBytes)
		if err != nil {
			return nil, err
		}
		dst, err := hostCopy(ctx, a, size, strides)
		if err != nil {
			res.release()
			return nil, err
		}
		if limit := r.GetInlineMaxBytes(); limit > 0 && size <= limit { // 0: jaxlib, which reads every buffer from the store
			res.release()
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyToHostBufferResponse{CopyToHostBufferResponse: &proxypb.CopyToHostBufferResponse{InlineData: dst}}}, nil
		}
		if err := s.buffers.put(r.GetHostBufferHandle(), dst, res); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyToHostBufferResponse{CopyToHostBufferResponse: &proxypb.CopyToHostBufferResponse{}}}, nil
	})
}

// hostCopy returns a's contents laid out by strides in size bytes: the
// array's own memory where its backend lends it and the layout is dense
// (gocpu: nothing writes an array's bytes, so the buffer store may hold
// them), else a copy.
func hostCopy(ctx context.Context, a ifrt.Array, size int64, strides []int64) ([]byte, error) {
	if ifrt.StridesAreDense(a.Shape(), a.DType().HostByteSize(), strides) {
		if data, ok, err := ifrt.HostBytes(a); err != nil || ok && int64(len(data)) == size {
			return data, err
		}
	}
	dst := make([]byte, size)
	if err := a.CopyToHostBuffer(ctx, dst, strides); err != nil {
		return nil, err
	}
	return dst, nil
}

func (s *session) copyArrays(o *op, r *proxypb.CopyArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, sem, err := s.reserveDerived(o, r.GetResultHandles(), len(r.GetArrayHandles()), r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	devs, err := wire.DeviceListFromIDs(r.GetDeviceIds(), s.lookup)
	if err != nil {
		return nil, nil, err
	}
	var kind *ifrt.MemoryKind
	if r.MemoryKind != nil {
		k := ifrt.MemoryKind(r.GetMemoryKind())
		kind = &k
	}
	return s.derive(o, r.GetArrayHandles(), sem, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.CopyArrays(ctx, in, devs, kind, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyArraysResponse{
		CopyArraysResponse: &proxypb.CopyArraysResponse{ArrayHandles: handlesOf(hs)}}})
}

// reserveDerived reserves the n result handles of a request that derives
// arrays from others, as reserveArrays does, and decodes its copy semantics.
func (s *session) reserveDerived(o *op, results []uint64, n int, sem proxypb.ArrayCopySemantics) ([]uint64, ifrt.CopySemantics, error) {
	hs, err := s.reserveArrays(o, results, n)
	if err != nil {
		return nil, 0, err
	}
	cs, err := wire.CopySemanticsFromProto(sem)
	return hs, cs, err
}

// derive plans a request that makes arrays from the arrays under handles, consumed
// when sem donates them: once they are ready, produce runs, and the session holds
// what it made under o's result handles before resp answers the request.
func (s *session) derive(o *op, handles []uint64, sem ifrt.CopySemantics, produce func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error), resp *proxypb.IfrtResponse) (*proxypb.IfrtResponse, runFunc, error) {
	return s.onArrays(o, handles, consumeIf(sem == ifrt.DonateInput), func(ctx context.Context, in []ifrt.Array) (*proxypb.IfrtResponse, error) {
		var n int64
		for _, a := range in {
			n += arrayBytes(a)
		}
		if err := s.checkLive(n); err != nil {
			return nil, err
		}
		out, err := produce(ctx, in)
		if err != nil {
			return nil, err
		}
		if err := s.produced(o, out); err != nil {
			return nil, err
		}
		return resp, nil
	})
}

func (s *session) reshardArrays(o *op, r *proxypb.ReshardArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, sem, err := s.reserveDerived(o, r.GetResultHandles(), len(r.GetArrayHandles()), r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	if len(r.GetArraySpecs()) != len(r.GetArrayHandles()) {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "ReshardArrays has %d arrays and %d specs", len(r.GetArrayHandles()), len(r.GetArraySpecs()))
	}
	specs := make([]ifrt.ArraySpec, len(r.GetArraySpecs()))
	for i, sp := range r.GetArraySpecs() {
		if specs[i], err = wire.ArraySpecFromProto(sp, s.lookup); err != nil {
			return nil, nil, err
		}
	}
	return s.derive(o, r.GetArrayHandles(), sem, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.Reshard(ctx, in, specs, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_ReshardArraysResponse{
		ReshardArraysResponse: &proxypb.ReshardArraysResponse{ArrayHandles: handlesOf(hs)}}})
}

func (s *session) remapArrays(o *op, r *proxypb.RemapArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	plan, err := wire.RemapPlanFromProto(r.GetPlan(), s.lookup)
	if err != nil {
		_, _ = s.reserveArrays(o, r.GetResultHandles(), -1) // the results fail with err; a bad handle is not a second error
		return nil, nil, err
	}
	hs, sem, err := s.reserveDerived(o, r.GetResultHandles(), len(plan.OutputSpecs), r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	return s.derive(o, r.GetArrayHandles(), sem, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.Remap(ctx, plan, in, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_RemapArraysResponse{
		RemapArraysResponse: &proxypb.RemapArraysResponse{ArrayHandles: handlesOf(hs)}}})
}

func (s *session) fullyReplicatedShard(o *op, r *proxypb.FullyReplicatedShardRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, sem, err := s.reserveDerived(o, wanted(r.GetResultHandle()), 1, r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	h := hs[0]
	return s.derive(o, []uint64{r.GetArrayHandle()}, sem, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		a, err := s.backend.FullyReplicatedShard(ctx, in[0], sem)
		return []ifrt.Array{a}, err
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_FullyReplicatedShardResponse{
		FullyReplicatedShardResponse: &proxypb.FullyReplicatedShardResponse{ArrayHandle: h}}})
}
