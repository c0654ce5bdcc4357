package proxyserver

import (
	"context"
	"fmt"
	"strings"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// plan is the planning step of every request kind; see session.
func (s *session) plan(o *op, req *proxypb.IfrtRequest) (*proxypb.IfrtResponse, runFunc, error) {
	switch r := req.GetRequest().(type) {
	case *proxypb.IfrtRequest_InitRequest:
		return s.init()
	case *proxypb.IfrtRequest_CheckFutureRequest:
		return s.checkFuture(r.CheckFutureRequest)
	case *proxypb.IfrtRequest_CheckValueReadyRequest:
		return s.checkValueReady(o, r.CheckValueReadyRequest)
	case *proxypb.IfrtRequest_MakeArrayFromHostBufferRequest:
		return s.makeArrayFromHostBuffer(o, r.MakeArrayFromHostBufferRequest)
	case *proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest:
		return s.makeArraysFromHostBufferShards(o, r.MakeArraysFromHostBufferShardsRequest)
	case *proxypb.IfrtRequest_MakeErrorArraysRequest:
		return s.makeErrorArrays(o, r.MakeErrorArraysRequest)
	case *proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest:
		return s.assemble(o, r.AssembleArrayFromSingleDeviceArraysRequest)
	case *proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest:
		return s.disassemble(o, r.DisassembleIntoSingleDeviceArraysRequest)
	case *proxypb.IfrtRequest_CopyToHostBufferRequest:
		return s.copyToHostBuffer(o, r.CopyToHostBufferRequest)
	case *proxypb.IfrtRequest_CopyArraysRequest:
		return s.copyArrays(o, r.CopyArraysRequest)
	case *proxypb.IfrtRequest_ReshardArraysRequest:
		return s.reshardArrays(o, r.ReshardArraysRequest)
	case *proxypb.IfrtRequest_RemapArraysRequest:
		return s.remapArrays(o, r.RemapArraysRequest)
	case *proxypb.IfrtRequest_FullyReplicatedShardRequest:
		return s.fullyReplicatedShard(o, r.FullyReplicatedShardRequest)
	case *proxypb.IfrtRequest_DeleteArrayRequest:
		return s.deleteArrays(o, r.DeleteArrayRequest)
	case *proxypb.IfrtRequest_IsArrayDeletedRequest:
		return s.isArrayDeleted(o, r.IsArrayDeletedRequest)
	case *proxypb.IfrtRequest_DestructArrayRequest:
		return s.destructArrays(r.DestructArrayRequest)
	case *proxypb.IfrtRequest_CompileRequest:
		return s.compile(r.CompileRequest)
	case *proxypb.IfrtRequest_LoadedExecutableMetadataRequest:
		return s.executableMetadata(o, r.LoadedExecutableMetadataRequest)
	case *proxypb.IfrtRequest_LoadedExecutableExecuteRequest:
		return s.execute(o, r.LoadedExecutableExecuteRequest)
	case *proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest:
		return s.fetchExecuteResult(r.LoadedExecutableFetchExecuteResultRequest)
	case *proxypb.IfrtRequest_LoadedExecutableDeleteRequest:
		return s.executableDelete(o, r.LoadedExecutableDeleteRequest)
	case *proxypb.IfrtRequest_LoadedExecutableIsDeletedRequest:
		return s.executableIsDeleted(o, r.LoadedExecutableIsDeletedRequest)
	case *proxypb.IfrtRequest_LoadedExecutableDestructRequest:
		return s.executableDestruct(r.LoadedExecutableDestructRequest)
	case *proxypb.IfrtRequest_LoadedExecutableCostAnalysisRequest:
		return s.costAnalysis(o, r.LoadedExecutableCostAnalysisRequest)
	case *proxypb.IfrtRequest_LoadedExecutableHumanReadableProgramTextRequest:
		return s.programText(o, r.LoadedExecutableHumanReadableProgramTextRequest)
	case *proxypb.IfrtRequest_GetDefaultDeviceAssignmentRequest:
		return s.defaultDeviceAssignment(r.GetDefaultDeviceAssignmentRequest)
	case *proxypb.IfrtRequest_GetDefaultLayoutRequest:
		return s.defaultLayout(r.GetDefaultLayoutRequest)
	case *proxypb.IfrtRequest_BitcastArraysRequest:
		err := ifrt.Errorf(ifrt.Unimplemented, "BitcastArrays is not supported by this server")
		_, _ = s.reserveArrays(o, r.BitcastArraysRequest.GetResultHandles(), -1) // the results fail with err; a bad handle is not a second error
		return nil, nil, err
	case nil:
		return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "Got unimplemented request type: the request carries no known kind")
	}
	return nil, nil, ifrt.Errorf(ifrt.Unimplemented, "Got unimplemented request type: %s", o.kind)
}

// init answers InitRequest with the backend's platform, devices and memories.
func (s *session) init() (*proxypb.IfrtResponse, runFunc, error) {
	b := s.backend
	p := b.Platform()
	resp := &proxypb.InitResponse{
		SessionId:       s.id,
		PlatformName:    p.Name,
		PlatformVersion: p.Version,
		PlatformId:      p.ID,
		ProcessIndex:    uint64(max(p.ProcessIndex, 0)),
		RuntimeType:     p.RuntimeType,
	}
	attrs, err := wire.AttributesToProto(b.Attributes())
	if err != nil {
		return nil, nil, err
	}
	resp.ClientAttributes = attrs
	seenMem := map[ifrt.MemoryID]bool{}
	for _, d := range b.Devices() {
		dp := &proxypb.InitResponse_Device{
			Id:              int32(d.ID),
			LocalDeviceId:   int32(d.LocalHardwareID),
			LocalHardwareId: int32(d.LocalHardwareID),
			PlatformName:    d.Platform,
			DeviceKind:      d.Kind,
			DebugString:     fmt.Sprintf("%s:%d", d.Platform, d.ID),
			ToString:        fmt.Sprintf("%sDevice(id=%d)", titleCase(d.Platform), d.ID),
		}
		if dp.PlatformName == "" {
			dp.PlatformName = p.Name
		}
		if dp.Attributes, err = wire.AttributesToProto(d.Attributes); err != nil {
			return nil, nil, err
		}
		if d.DefaultMemory != nil {
			id := int32(d.DefaultMemory.ID)
			dp.DefaultMemoryId = &id
		}
		for _, m := range d.Memories {
			dp.MemoryIds = append(dp.MemoryIds, int32(m.ID))
			if seenMem[m.ID] {
				continue
			}
			seenMem[m.ID] = true
			mp := &proxypb.InitResponse_Memory{
				Id: int32(m.ID), MemorySpaceKind: string(m.Kind),
				DebugString: m.String(), ToString: m.String(),
			}
			for _, id := range m.Devices {
				mp.DeviceIds = append(mp.DeviceIds, int32(id))
			}
			resp.Memories = append(resp.Memories, mp)
		}
		resp.AllDevices = append(resp.AllDevices, dp)
		resp.PrimaryDeviceIds = append(resp.PrimaryDeviceIds, int32(d.ID))
		if d.Addressable {
			resp.AddressableDeviceIds = append(resp.AddressableDeviceIds, int32(d.ID))
		}
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_InitResponse{InitResponse: resp}}, nil, nil
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (s *session) checkFuture(r *proxypb.CheckFutureRequest) (*proxypb.IfrtResponse, runFunc, error) {
	f, err := s.takeFuture(r.GetFutureHandle())
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := awaitFuture(ctx, f); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckFutureResponse{CheckFutureResponse: &proxypb.CheckFutureResponse{}}}, nil
	}, nil
}

func awaitFuture(ctx context.Context, f *ifrt.Future) error {
	if err := f.Await(ctx); err != nil {
		if ctx.Err() != nil {
			return ifrt.Errorf(ifrt.Canceled, "the session has ended")
		}
		return err
	}
	return nil
}

func (s *session) checkValueReady(o *op, r *proxypb.CheckValueReadyRequest) (*proxypb.IfrtResponse, runFunc, error) {
	es, err := s.useArrays(o, r.GetValueHandles(), nil)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		arrays, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
		for _, a := range arrays {
			if err := awaitFuture(ctx, a.Ready()); err != nil {
				return nil, err
			}
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CheckValueReadyResponse{CheckValueReadyResponse: &proxypb.CheckValueReadyResponse{}}}, nil
	}, nil
}

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
		a, err := s.backend.MakeArrayFromHostBuffer(ctx, data, spec, &ifrt.HostBufferOptions{ByteStrides: strides})
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

// assembleShards makes one array of MakeArraysFromHostBufferShards: once every
// host buffer of it has arrived, it reserves the dense array's bytes against
// the server's host-buffer budget (the session's holds its shards already, and
// planning checked the array against it) and copies the buffers into it.
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
	res, err := reserveAll(n, s.srv.hostBytes)
	if err != nil {
		return nil, err
	}
	defer res.release()
	full := make([]byte, n)
	elem := spec.DType.HostByteSize()
	for i, sh := range ss.shards {
		data := bufs[i]
		if sh.strides != nil {
			dense, _ := sh.shape.ByteSize(sh.dtype)
			d := make([]byte, dense)
			ifrt.CopyStridedToDense(d, data, sh.dtype, sh.shape, sh.strides)
			data = d
		}
		for _, k := range sh.indices {
			ifrt.InsertDomain(full, elem, spec.Shape, ss.domains[k], data)
		}
	}
	return s.backend.MakeArrayFromHostBuffer(ctx, full, spec, nil)
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

func (s *session) assemble(o *op, r *proxypb.AssembleArrayFromSingleDeviceArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	var want []uint64
	if r.GetResultHandle() != 0 {
		want = []uint64{r.GetResultHandle()}
	}
	hs, err := s.reserveArrays(o, want, 1)
	if err != nil {
		return nil, nil, err
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
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
	es, err := s.useArrays(o, r.GetSingleDeviceArrayHandles(), consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	if len(es) == 0 && dtype == ifrt.InvalidDType {
		return nil, nil, ifrt.Errorf(ifrt.InvalidArgument, "AssembleArrayFromSingleDeviceArrays without arrays needs a dtype")
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		parts, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
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
			AssembleArrayFromSingleDeviceArraysResponse: &proxypb.AssembleArrayFromSingleDeviceArraysResponse{ArrayHandle: hs[0]}}}, nil
	}, nil
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
	es, err := s.useArrays(o, []uint64{r.GetArrayHandle()}, consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		in, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
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
	}, nil
}

func (s *session) copyToHostBuffer(o *op, r *proxypb.CopyToHostBufferRequest) (*proxypb.IfrtResponse, runFunc, error) {
	if err := checkClientHandle(r.GetHostBufferHandle()); err != nil {
		return nil, nil, err
	}
	es, err := s.useArrays(o, []uint64{r.GetArrayHandle()}, nil)
	if err != nil {
		return nil, nil, err
	}
	strides := wire.ByteStridesFromProto(r.GetByteStrides())
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		in, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
		a := in[0]
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
		dst := make([]byte, size)
		if err := a.CopyToHostBuffer(ctx, dst, strides); err != nil {
			res.release()
			return nil, err
		}
		if err := s.buffers.put(r.GetHostBufferHandle(), dst, res); err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyToHostBufferResponse{CopyToHostBufferResponse: &proxypb.CopyToHostBufferResponse{}}}, nil
	}, nil
}

func (s *session) copyArrays(o *op, r *proxypb.CopyArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, err := s.reserveArrays(o, r.GetResultHandles(), len(r.GetArrayHandles()))
	if err != nil {
		return nil, nil, err
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
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
	es, err := s.useArrays(o, r.GetArrayHandles(), consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	return nil, s.derive(o, es, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.CopyArrays(ctx, in, devs, kind, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CopyArraysResponse{
		CopyArraysResponse: &proxypb.CopyArraysResponse{ArrayHandles: handlesOf(hs)}}}), nil
}

// derive is the work of a request that makes arrays from arrays: once the inputs es
// are ready, produce runs, and the session holds what it made under o's result handles
// before resp answers the request.
func (s *session) derive(o *op, es []*entry[ifrt.Array], produce func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error), resp *proxypb.IfrtResponse) runFunc {
	return func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		in, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
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
	}
}

func (s *session) reshardArrays(o *op, r *proxypb.ReshardArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	hs, err := s.reserveArrays(o, r.GetResultHandles(), len(r.GetArrayHandles()))
	if err != nil {
		return nil, nil, err
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
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
	es, err := s.useArrays(o, r.GetArrayHandles(), consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	return nil, s.derive(o, es, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.Reshard(ctx, in, specs, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_ReshardArraysResponse{
		ReshardArraysResponse: &proxypb.ReshardArraysResponse{ArrayHandles: handlesOf(hs)}}}), nil
}

func (s *session) remapArrays(o *op, r *proxypb.RemapArraysRequest) (*proxypb.IfrtResponse, runFunc, error) {
	plan, err := wire.RemapPlanFromProto(r.GetPlan(), s.lookup)
	if err != nil {
		_, _ = s.reserveArrays(o, r.GetResultHandles(), -1) // the results fail with err; a bad handle is not a second error
		return nil, nil, err
	}
	hs, err := s.reserveArrays(o, r.GetResultHandles(), len(plan.OutputSpecs))
	if err != nil {
		return nil, nil, err
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	es, err := s.useArrays(o, r.GetArrayHandles(), consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	return nil, s.derive(o, es, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		return s.backend.Remap(ctx, plan, in, sem)
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_RemapArraysResponse{
		RemapArraysResponse: &proxypb.RemapArraysResponse{ArrayHandles: handlesOf(hs)}}}), nil
}

func (s *session) fullyReplicatedShard(o *op, r *proxypb.FullyReplicatedShardRequest) (*proxypb.IfrtResponse, runFunc, error) {
	var want []uint64
	if r.GetResultHandle() != 0 {
		want = []uint64{r.GetResultHandle()}
	}
	hs, err := s.reserveArrays(o, want, 1)
	if err != nil {
		return nil, nil, err
	}
	sem, err := wire.CopySemanticsFromProto(r.GetCopySemantics())
	if err != nil {
		return nil, nil, err
	}
	es, err := s.useArrays(o, []uint64{r.GetArrayHandle()}, consumeIf(sem == ifrt.DonateInput))
	if err != nil {
		return nil, nil, err
	}
	return nil, s.derive(o, es, func(ctx context.Context, in []ifrt.Array) ([]ifrt.Array, error) {
		a, err := s.backend.FullyReplicatedShard(ctx, in[0], sem)
		return []ifrt.Array{a}, err
	}, &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_FullyReplicatedShardResponse{
		FullyReplicatedShardResponse: &proxypb.FullyReplicatedShardResponse{ArrayHandle: hs[0]}}}), nil
}

// deleteArrays deletes arrays once the requests before it that use them are
// done (and before any later request uses them), and answers with a future
// that resolves when the deletions have.
func (s *session) deleteArrays(o *op, r *proxypb.DeleteArrayRequest) (*proxypb.IfrtResponse, runFunc, error) {
	es, err := s.useArrays(o, r.GetArrayHandle(), consumeIf(true))
	if err != nil {
		return nil, nil, err
	}
	f, resolve := ifrt.NewFuture()
	fh, err := s.registerFuture(0, f)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		if err := o.awaitOrder(ctx); err != nil {
			resolve(err)
			return nil, err
		}
		var futures []*ifrt.Future
		for _, e := range es {
			a, err := e.wait(ctx)
			if err != nil {
				continue // an array that failed to be made holds nothing
			}
			futures = append(futures, a.Delete())
			s.forget(a)
		}
		resolve(awaitFuture(ctx, ifrt.JoinFutures(futures...)))
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DeleteArrayResponse{
			DeleteArrayResponse: &proxypb.DeleteArrayResponse{DeletionFutureHandle: fh}}}, nil
	}, nil
}

func (s *session) isArrayDeleted(o *op, r *proxypb.IsArrayDeletedRequest) (*proxypb.IfrtResponse, runFunc, error) {
	es, err := s.useArrays(o, []uint64{r.GetArrayHandle()}, nil)
	if err != nil {
		return nil, nil, err
	}
	return nil, func(ctx context.Context) (*proxypb.IfrtResponse, error) {
		in, err := awaitArrays(ctx, o, es)
		if err != nil {
			return nil, err
		}
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_IsArrayDeletedResponse{
			IsArrayDeletedResponse: &proxypb.IsArrayDeletedResponse{Deleted: in[0].IsDeleted()}}}, nil
	}, nil
}

// destructArrays forgets the handles now and releases the arrays once the
// requests before it that use them are done. Unknown handles are NOT_FOUND;
// the known ones are released anyway.
func (s *session) destructArrays(r *proxypb.DestructArrayRequest) (*proxypb.IfrtResponse, runFunc, error) {
	type target struct {
		e     *entry[ifrt.Array]
		prior []chan struct{}
	}
	var targets []target
	var unknown []string
	s.mu.Lock()
	for _, h := range r.GetArrayHandle() {
		e, ok := s.arrays[h]
		if !ok {
			unknown = append(unknown, fmt.Sprint(h))
			continue
		}
		delete(s.arrays, h)
		targets = append(targets, target{e, pendingUses(e)})
	}
	s.mu.Unlock()
	if len(targets) > 0 {
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			for _, t := range targets {
				if waitAll(s.ctx, t.prior) != nil {
					return
				}
				if a, err := t.e.wait(s.ctx); err == nil {
					s.drop(a)
				}
			}
		}()
	}
	if len(unknown) > 0 {
		return nil, nil, ifrt.Errorf(ifrt.NotFound, "Unknown array handles: %s", strings.Join(unknown, ", "))
	}
	return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_DestructArrayResponse{DestructArrayResponse: &proxypb.DestructArrayResponse{}}}, nil, nil
}
