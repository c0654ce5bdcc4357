package proxyserver

import (
	"context"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// arrayResponse wraps handles into the response of the given request kind.
func handlesOf(hs []uint64) []uint64 { return append([]uint64(nil), hs...) }

func (s *session) makeArrayFromHostBuffer(o *op, r *proxypb.MakeArrayFromHostBufferRequest) (*proxypb.IfrtResponse, runFunc, error) {
	var want []uint64
	if r.ArrayHandle != nil {
		want = []uint64{r.GetArrayHandle()}
	}
	hs, err := s.reserveArrays(o, want, 1)
	if err != nil {
		return nil, nil, err
	}
	spec, err := s.specFrom(r.GetDtype(), r.GetShape(), r.GetSharding())
	if err != nil {
		return nil, nil, err
	}
	if spec.Layout, err = wire.LayoutFromProto(r.GetLayout()); err != nil {
		return nil, nil, err
	}
	if err := wire.CheckLayoutRank(spec.Layout, len(spec.Shape)); err != nil {
		return nil, nil, err
	}
	strides := wire.ByteStridesFromProto(r.GetByteStrides())
	size, err := ifrt.StridedRegionSize(spec.DType, spec.Shape, strides)
	if err != nil {
		return nil, nil, err
	}
	dense, _ := spec.Shape.ByteSize(spec.DType)
	if err := s.checkArraySize(max(size, dense)); err != nil {
		return nil, nil, err
	}
	bufHandle := r.GetHostBufferHandle()
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		data, done, err := s.buffers.take(ctx, bufHandle)
		if err != nil {
			return nil, err
		}
		defer done()
		if int64(len(data)) != size {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d has %d bytes, %v%v needs %d", bufHandle, len(data), spec.DType, spec.Shape, size)
		}
		if ifrt.StridesAreDense(spec.Shape, spec.DType.HostByteSize(), strides) {
			strides = nil // what jaxlib sends for a dense array: no backend need look at it
		}
		a, err := s.backend.MakeArrayFromHostBuffer(ctx, data, spec, adoptable(strides))
		if err != nil {
			return nil, err
		}
		if err := s.produced(o, []ifrt.Array{a}); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_MakeArrayFromHostBufferResponse{
			MakeArrayFromHostBufferResponse: &proxypb.MakeArrayFromHostBufferResponse{ArrayHandle: hs[0]}}}, nil
	}, nil
}

func (s *session) checkBufferSize(n int64) error {
	if n > s.srv.cfg.MaxHostBufferSize {
		return ifrt.Errorf(ifrt.ResourceExhausted, "a host buffer of %d bytes exceeds the server's limit of %d bytes for one host buffer (Config.MaxHostBufferSize)", n, s.srv.cfg.MaxHostBufferSize)
	}
	return nil
}

// checkArraySize checks, before anything is allocated, that an array of n bytes
// made from host buffers fits the limits on one host buffer, on the session's
// host buffers (the array passes through host memory) and on its arrays.
func (s *session) checkArraySize(n int64) error {
	if err := s.checkBufferSize(n); err != nil {
		return err
	}
	if lim := s.hostBytes.limit; lim != NoLimit && n > lim {
		return ifrt.Errorf(ifrt.ResourceExhausted, "an array of %d bytes is over the session's max_session_host_buffer_bytes limit of %d", n, lim)
	}
	return s.checkLive(n)
}

// specFrom decodes and validates an array spec given as its parts.
func (s *session) specFrom(dt *proxypb.DTypeProto, shape *proxypb.ShapeProto, sh *proxypb.ShardingProto) (ifrt.ArraySpec, error) {
	var spec ifrt.ArraySpec
	var err error
	if spec.DType, err = wire.DTypeFromProto(dt); err != nil {
		return spec, err
	}
	if spec.Shape, err = wire.ShapeFromProto(shape); err != nil {
		return spec, err
	}
	if spec.Sharding, err = wire.ShardingFromProto(sh, s.lookup); err != nil {
		return spec, err
	}
	return spec, spec.Validate()
}

func (s *session) makeArraysFromHostBufferShards(o *op, r *proxypb.MakeArraysFromHostBufferShardsRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, err := s.reserveArrays(o, r.GetArrayHandles(), len(r.GetSpecs()))
	if err != nil {
		return nil, nil, err
	}
	specs := make([]shardedSpec, len(r.GetSpecs()))
	for i, sp := range r.GetSpecs() {
		spec, err := wire.ArraySpecFromProto(sp.GetArraySpec(), s.lookup)
		if err != nil {
			return nil, nil, err
		}
		dense, err := spec.Shape.ByteSize(spec.DType)
		if err != nil {
			return nil, nil, err
		}
		if err := s.checkArraySize(dense); err != nil {
			return nil, nil, err
		}
		domains, err := spec.Sharding.IndexDomains(spec.Shape)
		if err != nil {
			return nil, nil, err
		}
		if len(sp.GetHostBuffers()) != len(sp.GetAddressableShardIndices()) {
			return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "spec %d has %d host buffers and %d shard index lists", i, len(sp.GetHostBuffers()), len(sp.GetAddressableShardIndices()))
		}
		covered := make([]bool, len(domains))
		ss := shardedSpec{spec: spec, domains: domains}
		for j, hb := range sp.GetHostBuffers() {
			sh := hostShard{handle: hb.GetHostBufferHandle(), strides: wire.ByteStridesFromProto(hb.GetByteStrides()), indices: sp.GetAddressableShardIndices()[j].GetIndices()}
			if sh.dtype, err = wire.DTypeFromProto(hb.GetDtype()); err != nil {
				return nil, nil, err
			}
			if sh.dtype != spec.DType {
				return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d has dtype %v, the array %v", sh.handle, sh.dtype, spec.DType)
			}
			if sh.shape, err = wire.ShapeFromProto(hb.GetShape()); err != nil {
				return nil, nil, err
			}
			if sh.size, err = ifrt.StridedRegionSize(sh.dtype, sh.shape, sh.strides); err != nil {
				return nil, nil, err
			}
			for _, k := range sh.indices {
				if k < 0 || k >= int64(len(domains)) {
					return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "shard index %d is out of range [0, %d)", k, len(domains))
				}
				if !domains[k].Shape().Equal(sh.shape) {
					return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d has shape %v, shard %d is %v", sh.handle, sh.shape, k, domains[k].Shape())
				}
				covered[k] = true
			}
			ss.shards = append(ss.shards, sh)
		}
		for k, c := range covered {
			if !c {
				return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "spec %d leaves shard %d without a host buffer", i, k)
			}
		}
		specs[i] = ss
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		arrays := make([]ifrt.Array, 0, len(specs))
		fail := func(err error) (*proxypb.IfrtResponse, error) {
			for _, a := range arrays {
				a.Delete()
			}
			return nil, err
		}
		for _, ss := range specs {
			a, err := s.assembleShards(ctx, ss)
			if err != nil {
				return fail(err)
			}
			arrays = append(arrays, a)
		}
		if err := s.produced(o, arrays); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_MakeArraysFromHostBufferShardsResponse{
			MakeArraysFromHostBufferShardsResponse: &proxypb.MakeArraysFromHostBufferShardsResponse{ArrayHandles: handlesOf(hs)}}}, nil
	}, nil
}

// assembleShards makes one array of MakeArraysFromHostBufferShards once every
// host buffer of it has arrived. A single dense buffer holding the whole
// array goes to the backend as it is; otherwise each device's shard is made
// from its buffer (taken over where the backend can, copied for a second
// device of the same buffer) and the shards are assembled, so that the
// array's bytes are never gathered into one dense copy on the proxy (a 2 GiB
// sharded put held four times its size).
func (s *session) assembleShards(ctx context.Context, ss shardedSpec) (ifrt.Array, error) {
	spec := ss.spec
	bufs := make([][]byte, len(ss.shards))
	for i, sh := range ss.shards {
		data, done, err := s.buffers.take(ctx, sh.handle)
		if err != nil {
			return nil, err
		}
		defer done()
		if int64(len(data)) != sh.size {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "host buffer %d has %d bytes, %v%v needs %d", sh.handle, len(data), sh.dtype, sh.shape, sh.size)
		}
		bufs[i] = data
	}
	n, _ := spec.Shape.ByteSize(spec.DType)
	if sh := ss.shards[0]; len(ss.shards) == 1 && sh.strides == nil && sh.size == n {
		// One dense buffer holding the whole array (on one device, or
		// replicated): the backend takes it as it is.
		return s.backend.MakeArrayFromHostBuffer(ctx, bufs[0], spec, adoptable(nil))
	}
	devices, kind := spec.Sharding.Devices(), spec.Sharding.MemoryKind()
	parts := make([]ifrt.Array, len(ss.domains))
	fail := func(err error) (ifrt.Array, error) {
		for _, p := range parts {
			if p != nil {
				p.Delete()
			}
		}
		return nil, err
	}
	for i, sh := range ss.shards {
		data, opts := bufs[i], adoptable(sh.strides)
		for j, k := range sh.indices {
			if j > 0 {
				opts = &ifrt.HostBufferOptions{ByteStrides: sh.strides} // the backend copies: no two shards share memory
			}
			part := ifrt.ArraySpec{DType: spec.DType, Shape: ss.domains[k].Shape(), Sharding: ifrt.NewSingleDeviceSharding(devices[k], kind)}
			a, err := s.backend.MakeArrayFromHostBuffer(ctx, data, part, opts)
			if err != nil {
				return fail(err)
			}
			parts[k] = a
		}
	}
	a, err := s.backend.AssembleArray(ctx, spec, parts, ifrt.DonateInput)
	if err != nil {
		return fail(err)
	}
	return a, nil
}

func (s *session) makeErrorArrays(o *op, r *proxypb.MakeErrorArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, err := s.reserveArrays(o, r.GetArrayHandles(), len(r.GetArraySpecs()))
	if err != nil {
		return nil, nil, err
	}
	cause := wire.StatusToError(r.GetError())
	if cause == nil {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "MakeErrorArrays needs a non-OK error")
	}
	arrays := make([]ifrt.Array, len(r.GetArraySpecs()))
	for i, sp := range r.GetArraySpecs() {
		spec, err := wire.ArraySpecFromProto(sp, s.lookup)
		if err != nil {
			return nil, nil, err
		}
		arrays[i] = ifrt.NewErrorArray(spec, cause)
	}
	if err := s.produced(o, arrays); err != nil {
		return nil, nil, err
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_MakeErrorArraysResponse{
		MakeErrorArraysResponse: &proxypb.MakeErrorArraysResponse{ArrayHandles: handlesOf(hs)}}}, nil, nil
}

// adoptable are the options for a host buffer taken from the session's store,
// which nothing writes to again: the backend may keep it as the array's memory
// instead of copying it (PJRT's zero-copy semantics, gocpu's adoption). Its
// reservation ends when the call returns; from then on its bytes count as the
// array's.
func adoptable(strides []int64) *ifrt.HostBufferOptions {
	return &ifrt.HostBufferOptions{ByteStrides: strides, Semantics: ifrt.ImmutableZeroCopy}
}
