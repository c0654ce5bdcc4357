package proxyserver_test

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// seedRequests are valid requests of every kind, over the handles that
// FuzzIfrtRequest creates first: array 1 (f32[4] on device 0), array 2
// (f32[8,4] over devices 0-3) and host buffer 3.
func seedRequests(t testing.TB, h *harness) []*proxypb.IfrtRequest {
	rows, _ := ifrt.NewTiledSharding(h.devs(0, 1, 2, 3), 4, 1)
	dt, _ := wire.DTypeToProto(ifrt.F32)
	single, _ := wire.ShardingToProto(h.single(0))
	rowsP, _ := wire.ShardingToProto(rows)
	reuse := proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT
	plan, _ := wire.RemapPlanToProto(ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: h.single(0)}},
		OutputSpecs: []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: h.single(0)}},
		Mappings:    []ifrt.RemapMapping{{From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}}},
	})
	ten := uint64(10)
	// The oneof wrappers' interface is unexported: hold them as any.
	reqs := []any{
		&proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}},
		&proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: wire.ServerHandleMin}},
		&proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{1, 2}}},
		&proxypb.IfrtRequest_MakeArrayFromHostBufferRequest{MakeArrayFromHostBufferRequest: &proxypb.MakeArrayFromHostBufferRequest{
			Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{4}), Sharding: single, HostBufferHandle: 3, ArrayHandle: &ten, ByteStrides: &proxypb.ByteStrides{Strides: []int64{4}}}},
		&proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
			Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{{
				ArraySpec:               mustSpec(t, ifrt.F32, ifrt.Shape{4}, h.single(0)),
				HostBuffers:             []*proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{4}), HostBufferHandle: 3}},
				AddressableShardIndices: []*proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{{Indices: []int64{0}}},
			}}, ArrayHandles: []uint64{11}}},
		&proxypb.IfrtRequest_MakeErrorArraysRequest{MakeErrorArraysRequest: &proxypb.MakeErrorArraysRequest{
			Error: &proxypb.StatusProto{Code: proxypb.Code_ABORTED, Message: "x"}, ArraySpecs: []*proxypb.ArraySpecProto{mustSpec(t, ifrt.F32, ifrt.Shape{4}, h.single(0))}, ArrayHandles: []uint64{12}}},
		&proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest{AssembleArrayFromSingleDeviceArraysRequest: &proxypb.AssembleArrayFromSingleDeviceArraysRequest{
			Shape: wire.ShapeToProto(ifrt.Shape{4}), Sharding: single, SingleDeviceArrayHandles: []uint64{1}, CopySemantics: reuse, ResultHandle: 13, Dtype: dt}},
		&proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest{DisassembleIntoSingleDeviceArraysRequest: &proxypb.DisassembleIntoSingleDeviceArraysRequest{
			ArrayHandle: 2, CopySemantics: reuse, ResultHandles: []uint64{14, 15, 16, 17}}},
		&proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 2, HostBufferHandle: 18, ByteStrides: &proxypb.ByteStrides{Strides: []int64{16, 4}}}},
		&proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: &proxypb.CopyArraysRequest{ArrayHandles: []uint64{1}, DeviceIds: []int32{3}, CopySemantics: reuse, ResultHandles: []uint64{19}}},
		&proxypb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &proxypb.ReshardArraysRequest{
			ArrayHandles: []uint64{2}, ArraySpecs: []*proxypb.ArraySpecProto{{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{8, 4}), Sharding: rowsP}}, CopySemantics: reuse, ResultHandles: []uint64{20}}},
		&proxypb.IfrtRequest_RemapArraysRequest{RemapArraysRequest: &proxypb.RemapArraysRequest{Plan: plan, ArrayHandles: []uint64{1}, CopySemantics: reuse, ResultHandles: []uint64{21}}},
		&proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{ArrayHandle: 1, CopySemantics: reuse, ResultHandle: 22}},
		&proxypb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{1}}},
		&proxypb.IfrtRequest_IsArrayDeletedRequest{IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: 2}},
		&proxypb.IfrtRequest_DestructArrayRequest{DestructArrayRequest: &proxypb.DestructArrayRequest{ArrayHandle: []uint64{2}}},
		&proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
			Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte(addMul)}, CompileOptions: compileOpts(t, 0)}},
		&proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
			Program: &proxypb.Serialized{TypeName: "xla::ifrt::PluginProgram", Data: []byte(`__serialized_plugin_program {"echoRequest": {}}`)}}},
		&proxypb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: wire.ServerHandleMin}},
		&proxypb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &proxypb.LoadedExecutableExecuteRequest{
			LoadedExecutableHandle: wire.ServerHandleMin, ArgsHandles: []uint64{1, 1}, ExecuteOptions: &proxypb.ExecuteOptionsProto{FillStatus: true}, ResultArrayHandle: []uint64{23}, ResultStatusHandle: 24}},
		&proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{LoadedExecutableFetchExecuteResultRequest: &proxypb.LoadedExecutableFetchExecuteResultRequest{ResultStatusHandle: 24}},
		&proxypb.IfrtRequest_LoadedExecutableDeleteRequest{LoadedExecutableDeleteRequest: &proxypb.LoadedExecutableDeleteRequest{LoadedExecutableHandle: wire.ServerHandleMin}},
		&proxypb.IfrtRequest_LoadedExecutableIsDeletedRequest{LoadedExecutableIsDeletedRequest: &proxypb.LoadedExecutableIsDeletedRequest{LoadedExecutableHandle: wire.ServerHandleMin}},
		&proxypb.IfrtRequest_LoadedExecutableDestructRequest{LoadedExecutableDestructRequest: &proxypb.LoadedExecutableDestructRequest{LoadedExecutableHandle: wire.ServerHandleMin}},
		&proxypb.IfrtRequest_GetDefaultDeviceAssignmentRequest{GetDefaultDeviceAssignmentRequest: &proxypb.GetDefaultDeviceAssignmentRequest{NumReplicas: 1, NumPartitions: 4}},
		&proxypb.IfrtRequest_GetDefaultLayoutRequest{GetDefaultLayoutRequest: &proxypb.GetDefaultLayoutRequest{Dtype: dt, Dims: []int64{2, 2}, DeviceId: 1}},
	}
	out := make([]*proxypb.IfrtRequest, len(reqs))
	for i, r := range reqs {
		out[i] = &proxypb.IfrtRequest{RequestMetadata: &proxypb.RequestMetadata{OpId: 5}}
		reflect.ValueOf(out[i]).Elem().FieldByName("Request").Set(reflect.ValueOf(r))
	}
	return out
}

// FuzzIfrtRequest sends one random request into a session that holds a few
// arrays and an executable: the server must answer a following Init (the
// session stays up), and free everything when the session ends.
func FuzzIfrtRequest(f *testing.F) {
	errLogs := &syncBuffer{}
	h := newHarness(f, func(c *proxyserver.Config) {
		c.Logger = slog.New(slog.NewTextHandler(errLogs, &slog.HandlerOptions{Level: slog.LevelError}))
		c.MaxHostBufferSize = 1 << 24 // keep allocations of the fuzzed sizes small
		c.PluginPrograms = map[string]proxyserver.PluginHandler{"echoRequest": proxyservertest.EchoPlugin}
	})
	for _, r := range seedRequests(f, h) {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var req proxypb.IfrtRequest
		if proto.Unmarshal(b, &req) != nil {
			return
		}
		s := h.session(t)
		s.makeArray(1, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
		rows, _ := ifrt.NewTiledSharding(h.devs(0, 1, 2, 3), 4, 1)
		s.makeArray(2, iota32(32), ifrt.F32, ifrt.Shape{8, 4}, rows)
		compileText(t, s, addMul, 0)
		if err := s.store(3, f32bytes(5, 6, 7, 8)); err != nil {
			t.Fatal(err)
		}
		s.send(&req)
		mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
		s.close()
		h.expectFreed(t)
		// A recovered panic keeps the session up but is still a bug.
		if strings.Contains(errLogs.String(), "panicked") {
			t.Fatalf("a request panicked:\n%s", errLogs.String())
		}
	})
}
