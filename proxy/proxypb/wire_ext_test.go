package proxypb_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/openpathways/pathways/internal/wiretest"
	"github.com/openpathways/pathways/internal/xlapb"
	pb "github.com/openpathways/pathways/proxy/proxypb"
)

func TestIfrtRequestOneofNumbers(t *testing.T) {
	tests := []struct {
		num protowire.Number
		req *pb.IfrtRequest
	}{
		{2, &pb.IfrtRequest{Request: &pb.IfrtRequest_InitRequest{InitRequest: &pb.InitRequest{}}}},
		{3, &pb.IfrtRequest{Request: &pb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &pb.CheckFutureRequest{}}}},
		{4, &pb.IfrtRequest{Request: &pb.IfrtRequest_MakeArrayFromHostBufferRequest{MakeArrayFromHostBufferRequest: &pb.MakeArrayFromHostBufferRequest{}}}},
		{5, &pb.IfrtRequest{Request: &pb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest{AssembleArrayFromSingleDeviceArraysRequest: &pb.AssembleArrayFromSingleDeviceArraysRequest{}}}},
		{6, &pb.IfrtRequest{Request: &pb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &pb.CopyToHostBufferRequest{}}}},
		{7, &pb.IfrtRequest{Request: &pb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest{DisassembleIntoSingleDeviceArraysRequest: &pb.DisassembleIntoSingleDeviceArraysRequest{}}}},
		{8, &pb.IfrtRequest{Request: &pb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &pb.CheckValueReadyRequest{}}}},
		{9, &pb.IfrtRequest{Request: &pb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &pb.DeleteArrayRequest{}}}},
		{11, &pb.IfrtRequest{Request: &pb.IfrtRequest_IsArrayDeletedRequest{IsArrayDeletedRequest: &pb.IsArrayDeletedRequest{}}}},
		{12, &pb.IfrtRequest{Request: &pb.IfrtRequest_DestructArrayRequest{DestructArrayRequest: &pb.DestructArrayRequest{}}}},
		{13, &pb.IfrtRequest{Request: &pb.IfrtRequest_CompileRequest{CompileRequest: &pb.CompileRequest{}}}},
		{14, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &pb.LoadedExecutableMetadataRequest{}}}},
		{15, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &pb.LoadedExecutableExecuteRequest{}}}},
		{16, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableDeleteRequest{LoadedExecutableDeleteRequest: &pb.LoadedExecutableDeleteRequest{}}}},
		{17, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableIsDeletedRequest{LoadedExecutableIsDeletedRequest: &pb.LoadedExecutableIsDeletedRequest{}}}},
		{18, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableDestructRequest{LoadedExecutableDestructRequest: &pb.LoadedExecutableDestructRequest{}}}},
		{19, &pb.IfrtRequest{Request: &pb.IfrtRequest_GetDefaultDeviceAssignmentRequest{GetDefaultDeviceAssignmentRequest: &pb.GetDefaultDeviceAssignmentRequest{}}}},
		{20, &pb.IfrtRequest{Request: &pb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &pb.FullyReplicatedShardRequest{}}}},
		{21, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedHostCallbackPollRequest{LoadedHostCallbackPollRequest: &pb.LoadedHostCallbackPollRequest{}}}},
		{22, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedHostCallbackReturnRequest{LoadedHostCallbackReturnRequest: &pb.LoadedHostCallbackReturnRequest{}}}},
		{23, &pb.IfrtRequest{Request: &pb.IfrtRequest_RemapArraysRequest{RemapArraysRequest: &pb.RemapArraysRequest{}}}},
		{24, &pb.IfrtRequest{Request: &pb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: &pb.CopyArraysRequest{}}}},
		{25, &pb.IfrtRequest{Request: &pb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &pb.MakeArraysFromHostBufferShardsRequest{}}}},
		{26, &pb.IfrtRequest{Request: &pb.IfrtRequest_MakeErrorArraysRequest{MakeErrorArraysRequest: &pb.MakeErrorArraysRequest{}}}},
		{27, &pb.IfrtRequest{Request: &pb.IfrtRequest_GetDefaultLayoutRequest{GetDefaultLayoutRequest: &pb.GetDefaultLayoutRequest{}}}},
		{28, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableCostAnalysisRequest{LoadedExecutableCostAnalysisRequest: &pb.LoadedExecutableCostAnalysisRequest{}}}},
		{29, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableHumanReadableProgramTextRequest{LoadedExecutableHumanReadableProgramTextRequest: &pb.LoadedExecutableHumanReadableProgramTextRequest{}}}},
		{30, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableMpmdMetadataRequest{LoadedExecutableMpmdMetadataRequest: &pb.LoadedExecutableMpmdMetadataRequest{}}}},
		{31, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableMpmdCostAnalysisRequest{LoadedExecutableMpmdCostAnalysisRequest: &pb.LoadedExecutableMpmdCostAnalysisRequest{}}}},
		{32, &pb.IfrtRequest{Request: &pb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{LoadedExecutableFetchExecuteResultRequest: &pb.LoadedExecutableFetchExecuteResultRequest{}}}},
		{33, &pb.IfrtRequest{Request: &pb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &pb.ReshardArraysRequest{}}}},
		{34, &pb.IfrtRequest{Request: &pb.IfrtRequest_BitcastArraysRequest{BitcastArraysRequest: &pb.BitcastArraysRequest{}}}},
	}
	seen := map[protowire.Number]bool{}
	for _, tt := range tests {
		seen[tt.num] = true
		req := tt.req
		name := string(req.ProtoReflect().WhichOneof(req.ProtoReflect().Descriptor().Oneofs().ByName("request")).Name())
		t.Run(name, func(t *testing.T) {
			wiretest.CheckWire(t, req, wiretest.LenDelim(nil, tt.num, nil))
		})
	}
	// Every oneof member of the descriptor is covered by the table above.
	fields := (&pb.IfrtRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("request").Fields()
	for i := 0; i < fields.Len(); i++ {
		if n := fields.Get(i).Number(); !seen[n] {
			t.Errorf("IfrtRequest oneof member %s (%d) has no wire test", fields.Get(i).Name(), n)
		}
	}
}

func TestIfrtResponseOneofNumbersMatchRequest(t *testing.T) {
	// The upstream protocol gives each response the number of its request;
	// the names differ only in the Request/Response suffix.
	reqFields := (&pb.IfrtRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("request").Fields()
	respFields := (&pb.IfrtResponse{}).ProtoReflect().Descriptor().Oneofs().ByName("response").Fields()
	if reqFields.Len() != respFields.Len() {
		t.Fatalf("request oneof has %d members, response oneof %d", reqFields.Len(), respFields.Len())
	}
	for i := 0; i < reqFields.Len(); i++ {
		rf := reqFields.Get(i)
		name := string(rf.Name())
		name = name[:len(name)-len("request")] + "response"
		sf := respFields.ByName(protoreflect.Name(name))
		if sf == nil {
			t.Errorf("no response field %s for request field %s", name, rf.Name())
			continue
		}
		if sf.Number() != rf.Number() {
			t.Errorf("%s = %d, %s = %d; want equal", rf.Name(), rf.Number(), sf.Name(), sf.Number())
		}
	}
}

func TestInitRoundTrip(t *testing.T) {
	req := &pb.IfrtRequest{
		RequestMetadata: &pb.RequestMetadata{OpId: 1},
		Request:         &pb.IfrtRequest_InitRequest{InitRequest: &pb.InitRequest{}},
	}
	want := wiretest.LenDelim(nil, 1, wiretest.Fixed64(nil, 1, 1)) // request_metadata.op_id, fixed64
	want = wiretest.LenDelim(want, 2, nil)                         // init_request
	wiretest.CheckWire(t, req, want)

	resp := &pb.IfrtResponse{
		ResponseMetadata: &pb.ResponseMetadata{OpId: 1},
		Response: &pb.IfrtResponse_InitResponse{InitResponse: &pb.InitResponse{
			SessionId: 7,
		}},
	}
	want = wiretest.LenDelim(nil, 1, wiretest.Fixed64(nil, 1, 1))
	want = wiretest.LenDelim(want, 2, wiretest.Varint(nil, 8, 7)) // init_response.session_id = 8, uint64
	wiretest.CheckWire(t, resp, want)
}

func TestInitResponseDevice(t *testing.T) {
	dev := &pb.InitResponse_Device{
		Id:              3,
		PlatformName:    "cpu",
		DefaultMemoryId: proto.Int32(0), // explicit presence: 0 is still sent
		MemoryIds:       []int32{0, 1},
	}
	var want []byte
	want = wiretest.Varint(want, 1, 3)
	want = wiretest.Varint(want, 7, 0)
	want = wiretest.LenDelim(want, 8, []byte{0, 1}) // packed int32
	want = wiretest.LenDelim(want, 11, []byte("cpu"))
	wiretest.CheckWire(t, dev, want)

	mem := &pb.InitResponse_Memory{Id: 1, MemorySpaceKind: "device", DeviceIds: []int32{3}}
	want = wiretest.Varint(nil, 1, 1)
	want = wiretest.LenDelim(want, 2, []byte("device"))
	want = wiretest.LenDelim(want, 3, []byte{3})
	wiretest.CheckWire(t, mem, want)

	init := &pb.InitResponse{PrimaryDeviceIds: []int32{5}, AddressableDeviceIds: []int32{5}}
	want = wiretest.LenDelim(nil, 7, []byte{5})
	want = wiretest.LenDelim(want, 10, []byte{5})
	wiretest.CheckWire(t, init, want)
}

func TestDeleteAndDestructUseField2(t *testing.T) {
	handles := []uint64{1, 1 << 48}
	want := wiretest.LenDelim(nil, 2, wiretest.PackedFixed64(handles...))
	wiretest.CheckWire(t, &pb.DeleteArrayRequest{ArrayHandle: handles}, want)
	wiretest.CheckWire(t, &pb.DestructArrayRequest{ArrayHandle: handles}, want)
	wiretest.CheckWire(t, &pb.DeleteArrayResponse{DeletionFutureHandle: 9}, wiretest.Fixed64(nil, 1, 9))
}

func TestCheckValueReadyIsUnpacked(t *testing.T) {
	want := wiretest.Fixed64(nil, 1, 4)
	want = wiretest.Fixed64(want, 1, 5)
	wiretest.CheckWire(t, &pb.CheckValueReadyRequest{ValueHandles: []uint64{4, 5}}, want)

	// A packed encoding must still decode (proto3 parsers accept both).
	packed := wiretest.LenDelim(nil, 1, wiretest.PackedFixed64(4, 5))
	var got pb.CheckValueReadyRequest
	if err := proto.Unmarshal(packed, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{4, 5}, got.GetValueHandles()); diff != "" {
		t.Errorf("packed decode (-want +got):\n%s", diff)
	}
}

func TestArrayRequests(t *testing.T) {
	strides := &pb.ByteStrides{Strides: []int64{4}}
	copyReq := &pb.CopyToHostBufferRequest{HostBufferHandle: 2, ArrayHandle: 1, ByteStrides: strides}
	want := wiretest.Fixed64(nil, 1, 2)
	want = wiretest.Fixed64(want, 2, 1)
	want = wiretest.LenDelim(want, 3, wiretest.LenDelim(nil, 1, []byte{4}))
	wiretest.CheckWire(t, copyReq, want)

	frs := &pb.FullyReplicatedShardRequest{
		ArrayHandle:   1,
		CopySemantics: pb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT,
		ResultHandle:  2,
	}
	want = wiretest.Fixed64(nil, 1, 1)
	want = wiretest.Varint(want, 2, 2)
	want = wiretest.Fixed64(want, 3, 2)
	wiretest.CheckWire(t, frs, want)

	mk := &pb.MakeArrayFromHostBufferRequest{
		Dtype:            &pb.DTypeProto{Kind: pb.DTypeProto_KIND_F32},
		Shape:            &pb.ShapeProto{Dims: []int64{8}},
		HostBufferHandle: 3,
		ArrayHandle:      proto.Uint64(3),
	}
	want = wiretest.LenDelim(nil, 1, wiretest.Varint(nil, 1, 11)) // dtype.kind F32 = 11
	want = wiretest.LenDelim(want, 2, wiretest.LenDelim(nil, 1, []byte{8}))
	want = wiretest.Fixed64(want, 4, 3)
	want = wiretest.Fixed64(want, 6, 3)
	wiretest.CheckWire(t, mk, want)

	asm := &pb.AssembleArrayFromSingleDeviceArraysRequest{
		SingleDeviceArrayHandles:   []uint64{1, 2},
		CopySemantics:              pb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT,
		SingleDeviceShardSemantics: pb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_ADDRESSABLE_SHARDS.Enum(),
		ResultHandle:               3,
	}
	want = wiretest.LenDelim(nil, 3, wiretest.PackedFixed64(1, 2))
	want = wiretest.Varint(want, 4, 2)
	want = wiretest.Varint(want, 5, 1)
	want = wiretest.Fixed64(want, 6, 3)
	wiretest.CheckWire(t, asm, want)

	cp := &pb.CopyArraysRequest{ArrayHandles: []uint64{1}, DeviceIds: []int32{2}, MemoryKind: proto.String("")}
	want = wiretest.LenDelim(nil, 1, wiretest.PackedFixed64(1))
	want = wiretest.LenDelim(want, 2, []byte{2})
	want = wiretest.LenDelim(want, 3, nil) // present but empty: the default memory kind
	wiretest.CheckWire(t, cp, want)
}

func TestCompileAndExecute(t *testing.T) {
	compile := &pb.CompileRequest{
		Program:        &pb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte("ML\xefR")},
		CompileOptions: &pb.Serialized{TypeName: "xla::ifrt::XlaCompileOptions"},
	}
	prog := wiretest.LenDelim(nil, 1, []byte("xla::ifrt::XlaProgram"))
	prog = wiretest.LenDelim(prog, 2, []byte("ML\xefR"))
	want := wiretest.LenDelim(nil, 1, prog)
	want = wiretest.LenDelim(want, 2, wiretest.LenDelim(nil, 1, []byte("xla::ifrt::XlaCompileOptions")))
	wiretest.CheckWire(t, compile, want)

	resp := &pb.CompileResponse{
		LoadedExecutableHandle:    1 << 48,
		Name:                      "main",
		NumDevices:                1,
		AddressableDeviceIds:      []int32{0},
		Fingerprint:               &pb.CompileResponse_FingerprintValue{FingerprintValue: []byte{1}},
		LoadedHostCallbackHandles: nil,
		ReadyFutureHandle:         proto.Uint64(1<<48 + 1),
		DeviceIds:                 []int32{0},
	}
	want = wiretest.Fixed64(nil, 1, 1<<48)
	want = wiretest.LenDelim(want, 2, []byte("main"))
	want = wiretest.Varint(want, 3, 1)
	want = wiretest.LenDelim(want, 5, []byte{0})
	want = wiretest.LenDelim(want, 6, []byte{1})
	want = wiretest.Fixed64(want, 9, 1<<48+1)
	want = wiretest.LenDelim(want, 10, []byte{0})
	wiretest.CheckWire(t, resp, want)

	exec := &pb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: 1 << 48,
		ArgsHandles:            []uint64{5},
		ExecuteOptions:         &pb.ExecuteOptionsProto{FillStatus: true, LaunchId: 2},
		ResultArrayHandle:      []uint64{6},
		ResultStatusHandle:     7,
	}
	opts := wiretest.Varint(nil, 3, 2)
	opts = wiretest.Varint(opts, 9, 1)
	want = wiretest.Fixed64(nil, 1, 1<<48)
	want = wiretest.LenDelim(want, 2, wiretest.PackedFixed64(5))
	want = wiretest.LenDelim(want, 3, opts)
	want = wiretest.LenDelim(want, 5, wiretest.PackedFixed64(6))
	want = wiretest.Fixed64(want, 6, 7)
	wiretest.CheckWire(t, exec, want)

	out := &pb.LoadedExecutableExecuteResponse{
		Outputs: []*pb.LoadedExecutableExecuteResponse_Output{{ArrayHandle: 8}},
	}
	wiretest.CheckWire(t, out, wiretest.LenDelim(nil, 2, wiretest.Fixed64(nil, 4, 8)))
}

func TestLoadedExecutableMetadata(t *testing.T) {
	m := &pb.LoadedExecutableMetadataResponse{
		OutputShardings: &pb.LoadedExecutableMetadataResponse_ShardingList{
			Shardings: []*xlapb.OpSharding{{Type: xlapb.OpSharding_REPLICATED}},
		},
		OutputMemoryKinds: &pb.LoadedExecutableMetadataResponse_OutputMemoryKind{
			MemoryKindLists: []*pb.LoadedExecutableMetadataResponse_MemoryKindList{{MemoryKinds: []string{"device"}}},
		},
		OutputLayouts: &pb.LoadedExecutableMetadataResponse_OutputLayoutsList{
			OutputLayoutsList: &pb.LoadedExecutableMetadataResponse_LayoutList{
				Layouts: []*xlapb.LayoutProto{{MinorToMajor: []int64{0}}},
			},
		},
		DonatedInputIndicesOneof: &pb.LoadedExecutableMetadataResponse_DonatedInputIndices_{
			DonatedInputIndices: &pb.LoadedExecutableMetadataResponse_DonatedInputIndices{
				DonatedInputIndices: []uint32{0, 2},
			},
		},
		CompiledMemoryStatsOneof: &pb.LoadedExecutableMetadataResponse_CompiledMemoryStatsError{
			CompiledMemoryStatsError: &pb.StatusProto{Code: pb.Code_UNIMPLEMENTED},
		},
	}
	var want []byte
	want = wiretest.LenDelim(want, 2, wiretest.LenDelim(nil, 1, nil)) // one empty (REPLICATED) OpSharding
	want = wiretest.LenDelim(want, 3, wiretest.LenDelim(nil, 2, wiretest.LenDelim(nil, 1, []byte("device"))))
	want = wiretest.LenDelim(want, 6, wiretest.LenDelim(nil, 1, wiretest.LenDelim(nil, 1, []byte{0})))
	want = wiretest.LenDelim(want, 8, wiretest.LenDelim(nil, 1, []byte{0, 0, 0, 0, 2, 0, 0, 0})) // packed fixed32
	want = wiretest.LenDelim(want, 11, wiretest.Varint(nil, 1, 12))
	wiretest.CheckWire(t, m, want)
}

func TestStatusProto(t *testing.T) {
	st := &pb.StatusProto{Code: pb.Code_NOT_FOUND, Message: "Unknown array handle: 3"}
	want := wiretest.Varint(nil, 1, 5)
	want = wiretest.LenDelim(want, 2, []byte(st.Message))
	wiretest.CheckWire(t, st, want)

	resp := &pb.IfrtResponse{ResponseMetadata: &pb.ResponseMetadata{OpId: 2, Status: st}}
	md := wiretest.Fixed64(nil, 1, 2)
	md = wiretest.LenDelim(md, 2, want)
	wiretest.CheckWire(t, resp, wiretest.LenDelim(nil, 1, md))

	// Code values are the gRPC codes.
	for code, want := range map[pb.Code]int32{
		pb.Code_OK: 0, pb.Code_CANCELLED: 1, pb.Code_INVALID_ARGUMENT: 3, pb.Code_NOT_FOUND: 5,
		pb.Code_ALREADY_EXISTS: 6, pb.Code_FAILED_PRECONDITION: 9, pb.Code_UNIMPLEMENTED: 12,
		pb.Code_INTERNAL: 13, pb.Code_UNAVAILABLE: 14, pb.Code_DATA_LOSS: 15, pb.Code_UNAUTHENTICATED: 16,
	} {
		if int32(code) != want {
			t.Errorf("%v = %d, want %d", code, int32(code), want)
		}
	}
}

func TestTransportMessages(t *testing.T) {
	md := &pb.GrpcHostBufferStoreMetadata{SessionId: 1, Handle: 2, BufferSize: 32}
	want := wiretest.Fixed64(nil, 1, 1)
	want = wiretest.Fixed64(want, 2, 2)
	want = wiretest.Varint(want, 3, 32)
	wiretest.CheckWire(t, md, want)

	lookup := &pb.GrpcHostBufferLookupRequest{SessionId: 1, Handle: 2}
	want = wiretest.Fixed64(nil, 1, 1)
	want = wiretest.Fixed64(want, 2, 2)
	wiretest.CheckWire(t, lookup, want)
	wiretest.CheckWire(t, &pb.GrpcHostBufferDeleteRequest{SessionId: 1, Handle: 2}, want)

	ver := &pb.GrpcGetVersionRequest{
		MinVersion: &pb.IfrtProxyVersion{ProtocolVersion: 16},
		MaxVersion: &pb.IfrtProxyVersion{ProtocolVersion: 23, IfrtSerdesVersionNumber: 2},
	}
	want = wiretest.LenDelim(nil, 1, wiretest.Varint(nil, 1, 16))
	want = wiretest.LenDelim(want, 2, wiretest.Varint(wiretest.Varint(nil, 1, 23), 2, 2))
	wiretest.CheckWire(t, ver, want)

	sess := &pb.GrpcIfrtSessionMetadata{
		Version: &pb.IfrtProxyVersion{ProtocolVersion: 23},
		InitializationData: &pb.AttributeMapProto{Attributes: map[string]*pb.AttributeMapProto_Value{
			"k": {Value: &pb.AttributeMapProto_Value_Int64Value{Int64Value: -1}},
		}},
	}
	entry := wiretest.LenDelim(nil, 1, []byte("k"))
	entry = wiretest.LenDelim(entry, 2, wiretest.Fixed64(nil, 3, ^uint64(0))) // sfixed64
	want = wiretest.LenDelim(nil, 1, wiretest.Varint(nil, 1, 23))
	want = wiretest.LenDelim(want, 2, wiretest.LenDelim(nil, 1, entry))
	wiretest.CheckWire(t, sess, want)
}

func TestShardingPayloads(t *testing.T) {
	single := &pb.SingleDeviceShardingProto{DeviceId: 3, MemoryKind: proto.String("device")}
	want := wiretest.Varint(nil, 1, 3)
	want = wiretest.LenDelim(want, 2, []byte("device"))
	wiretest.CheckWire(t, single, want)

	hlo := &pb.HloShardingProto{
		Devices: &pb.DeviceListProto{DeviceIds: []int32{0, 1}},
		XlaOpSharding: &xlapb.OpSharding{
			Type:                     xlapb.OpSharding_OTHER,
			TileAssignmentDimensions: []int64{2, 1},
			TileAssignmentDevices:    []int64{0, 1},
		},
	}
	ops := wiretest.Varint(nil, 1, 3)
	ops = wiretest.LenDelim(ops, 3, []byte{2, 1})
	ops = wiretest.LenDelim(ops, 4, []byte{0, 1})
	want = wiretest.LenDelim(nil, 1, wiretest.LenDelim(nil, 1, []byte{0, 1}))
	want = wiretest.LenDelim(want, 2, ops)
	wiretest.CheckWire(t, hlo, want)

	even := &pb.ConcreteEvenShardingProto{IsFullyReplicated: true, MemoryKind: proto.String("")}
	want = wiretest.LenDelim(nil, 4, nil)
	want = wiretest.Varint(want, 5, 1)
	wiretest.CheckWire(t, even, want)

	concrete := &pb.ConcreteShardingProto{
		ShapeOrDynamicShape: &pb.ConcreteShardingProto_DynamicShape{DynamicShape: &pb.DynamicShapeProto{}},
	}
	wiretest.CheckWire(t, concrete, wiretest.LenDelim(nil, 5, nil))

	param := &pb.ShardingParamShardingProto{ShardingParam: &pb.ShardingParamProto{DimShards: []int64{2}}}
	wiretest.CheckWire(t, param, wiretest.LenDelim(nil, 1, wiretest.LenDelim(nil, 1, []byte{2})))
}

func TestVersionNumberFields(t *testing.T) {
	// version_number is a field of every versioned xla.ifrt message; a
	// server leaves it 0. The numbers matter for decoding what clients send.
	tests := []struct {
		msg proto.Message
		num protowire.Number
	}{
		{&pb.DTypeProto{}, 2},
		{&pb.ShapeProto{}, 2},
		{&pb.DynamicShapeProto{}, 3},
		{&pb.DeviceListProto{}, 2},
		{&pb.ArraySpecProto{}, 5},
		{&pb.AttributeMapProto{}, 2},
		{&pb.ExecuteOptionsProto{}, 12},
		{&pb.RemapPlanProto{}, 4},
		{&pb.CompactLayoutProto{}, 2},
		{&pb.PjRtLayoutProto{}, 2},
		{&pb.SingleDeviceShardingProto{}, 3},
		{&pb.OpaqueShardingProto{}, 3},
		{&pb.ConcreteShardingProto{}, 7},
		{&pb.ConcreteEvenShardingProto{}, 6},
		{&pb.ShardingParamShardingProto{}, 4},
		{&pb.ShardingParamProto{}, 4},
		{&pb.HloShardingProto{}, 4},
	}
	for _, tt := range tests {
		fd := tt.msg.ProtoReflect().Descriptor().Fields().ByName("version_number")
		if fd == nil || fd.Number() != tt.num || fd.Kind() != protoreflect.Int32Kind {
			t.Errorf("%T.version_number = %v, want int32 field %d", tt.msg, fd, tt.num)
		}
	}
}

func TestFullNames(t *testing.T) {
	// Full names appear in Any type URLs and gRPC method paths.
	tests := []struct {
		msg  proto.Message
		want protoreflect.FullName
	}{
		{&pb.IfrtRequest{}, "xla.ifrt.proxy.IfrtRequest"},
		{&pb.GrpcHostBufferStoreMetadata{}, "xla.ifrt.proxy.GrpcHostBufferStoreMetadata"},
		{&pb.ShardingProto{}, "xla.ifrt.ShardingProto"},
		{&pb.HloShardingProto{}, "xla.ifrt.HloShardingProto"},
		{&pb.XlaCompileOptionsProto{}, "xla.ifrt.XlaCompileOptionsProto"},
		{&pb.ByteStrides{}, "xla.ifrt.proto.ByteStrides"},
		{&pb.StringArrayContents{}, "xla.ifrt.proto.StringArrayContents"},
		{&pb.StatusProto{}, "tensorflow.StatusProto"},
		{&xlapb.OpSharding{}, "xla.OpSharding"},
		{&xlapb.CompileOptionsProto{}, "xla.CompileOptionsProto"},
	}
	for _, tt := range tests {
		if got := tt.msg.ProtoReflect().Descriptor().FullName(); got != tt.want {
			t.Errorf("%T full name = %s, want %s", tt.msg, got, tt.want)
		}
	}
	if got := pb.Code_OK.Descriptor().FullName(); got != "tensorflow.error.Code" {
		t.Errorf("Code full name = %s", got)
	}
}

func TestService(t *testing.T) {
	if got := pb.GrpcIfrtService_ServiceDesc.ServiceName; got != "xla.ifrt.proxy.GrpcIfrtService" {
		t.Errorf("service name = %q", got)
	}
	sd := pb.File_proxy_proxypb_grpc_ifrt_service_proto.Services().ByName("GrpcIfrtService")
	type kind struct{ client, server bool }
	want := map[protoreflect.Name]kind{
		"GetVersion":             {false, false},
		"IfrtSession":            {true, true},
		"HostBufferStore":        {true, false},
		"HostBufferLookup":       {false, true},
		"HostBufferDelete":       {false, false},
		"HostBufferReadFromDisk": {false, false},
	}
	if sd.Methods().Len() != len(want) {
		t.Errorf("service has %d methods, want %d", sd.Methods().Len(), len(want))
	}
	for name, k := range want {
		md := sd.Methods().ByName(name)
		if md == nil {
			t.Errorf("method %s missing", name)
			continue
		}
		if got := (kind{md.IsStreamingClient(), md.IsStreamingServer()}); got != k {
			t.Errorf("%s streaming (client, server) = %v, want %v", name, got, k)
		}
	}
	if pb.GrpcIfrtService_IfrtSession_FullMethodName != "/xla.ifrt.proxy.GrpcIfrtService/IfrtSession" {
		t.Errorf("IfrtSession path = %q", pb.GrpcIfrtService_IfrtSession_FullMethodName)
	}
}

func TestUnknownFieldsSurvive(t *testing.T) {
	// A field added upstream after our snapshot must pass through a decode
	// and re-encode unchanged.
	in := wiretest.LenDelim(nil, 2, []byte("xla::ifrt::XlaProgram"))
	in = wiretest.Varint(in, 99, 5)
	var s pb.Serialized
	if err := proto.Unmarshal(in, &s); err != nil {
		t.Fatal(err)
	}
	out, err := proto.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(in, out) {
		t.Errorf("re-encoded %x, want %x", out, in)
	}
}

func TestDTypeKindVersusPrimitiveType(t *testing.T) {
	// IFRT dtype kinds reuse XLA's numbers except for these; a blind cast
	// between the two enums is wrong for them.
	differ := map[pb.DTypeProto_Kind]xlapb.PrimitiveType{
		pb.DTypeProto_KIND_F4E2M1FN:  xlapb.PrimitiveType_F4E2M1FN,
		pb.DTypeProto_KIND_F8E8M0FNU: xlapb.PrimitiveType_F8E8M0FNU,
	}
	for k, p := range differ {
		if int32(k) == int32(p) {
			t.Errorf("%v and %v share number %d; upstream numbers differ", k, p, int32(k))
		}
	}
	if pb.DTypeProto_KIND_F4E2M1FN != 30 || pb.DTypeProto_KIND_F8E8M0FNU != 31 || pb.DTypeProto_KIND_STRING != 99 {
		t.Errorf("DTypeProto kinds F4E2M1FN, F8E8M0FNU, STRING = %d, %d, %d; want 30, 31, 99",
			pb.DTypeProto_KIND_F4E2M1FN, pb.DTypeProto_KIND_F8E8M0FNU, pb.DTypeProto_KIND_STRING)
	}
	same := []struct {
		k pb.DTypeProto_Kind
		p xlapb.PrimitiveType
	}{
		{pb.DTypeProto_KIND_PRED, xlapb.PrimitiveType_PRED},
		{pb.DTypeProto_KIND_S32, xlapb.PrimitiveType_S32},
		{pb.DTypeProto_KIND_F32, xlapb.PrimitiveType_F32},
		{pb.DTypeProto_KIND_BF16, xlapb.PrimitiveType_BF16},
		{pb.DTypeProto_KIND_C128, xlapb.PrimitiveType_C128},
		{pb.DTypeProto_KIND_TOKEN, xlapb.PrimitiveType_TOKEN},
		{pb.DTypeProto_KIND_OPAQUE, xlapb.PrimitiveType_OPAQUE_TYPE},
		{pb.DTypeProto_KIND_S4, xlapb.PrimitiveType_S4},
		{pb.DTypeProto_KIND_F8E4M3FN, xlapb.PrimitiveType_F8E4M3FN},
	}
	for _, s := range same {
		if int32(s.k) != int32(s.p) {
			t.Errorf("%v = %d, %v = %d; want equal", s.k, int32(s.k), s.p, int32(s.p))
		}
	}
}
