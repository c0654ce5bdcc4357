package proxyserver_test

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// addMul computes (a+b)*a on f32[4]; its first argument may be donated.
const addMul = `module @jit_add_mul attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
`

// rowsDouble doubles f32[8,4] split by rows over 4 devices.
const rowsDouble = `module @jit_rows attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
`

// compileOpts returns XlaCompileOptions assigning one replica and len(devs)
// partitions to devs.
func compileOpts(t testing.TB, devs ...int64) *proxypb.Serialized {
	t.Helper()
	da := &xlapb.DeviceAssignmentProto{ReplicaCount: 1, ComputationCount: int32(len(devs))}
	for _, d := range devs {
		da.ComputationDevices = append(da.ComputationDevices, &xlapb.DeviceAssignmentProto_ComputationDevice{ReplicaDeviceIds: []int64{d}})
	}
	b, err := proto.Marshal(&proxypb.XlaCompileOptionsProto{CompileOptions: &xlapb.CompileOptionsProto{
		ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{NumReplicas: 1, NumPartitions: int64(len(devs)), DeviceAssignment: da, UseSpmdPartitioning: len(devs) > 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &proxypb.Serialized{TypeName: "xla::ifrt::XlaCompileOptions", Data: b}
}

// compileText compiles a StableHLO text program the way jaxlib sends programs,
// checks the ready future and the metadata, and returns the handle.
func compileText(t testing.TB, s *sess, module string, devs ...int64) uint64 {
	t.Helper()
	resp := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program:        &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte(module)},
		CompileOptions: compileOpts(t, devs...),
	}}})).GetCompileResponse()
	if resp.GetLoadedExecutableHandle() < wire.ServerHandleMin || resp.ReadyFutureHandle == nil {
		t.Fatalf("CompileResponse = %v", resp)
	}
	if int(resp.GetNumDevices()) != len(devs) || len(resp.GetAddressableDeviceIds()) != len(devs) || len(resp.GetDeviceIds()) != len(devs) {
		t.Errorf("CompileResponse devices = %v / %v / %v, want %v", resp.GetNumDevices(), resp.GetDeviceIds(), resp.GetAddressableDeviceIds(), devs)
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: resp.GetReadyFutureHandle()}}}))
	return resp.GetLoadedExecutableHandle()
}

func execute(t testing.TB, s *sess, exe uint64, args, results []uint64, fillStatus bool) *proxypb.LoadedExecutableExecuteResponse {
	t.Helper()
	return mustOK(t, s.call(executeReq(exe, args, results, fillStatus, 0))).GetLoadedExecutableExecuteResponse()
}

func executeReq(exe uint64, args, results []uint64, fillStatus bool, statusHandle uint64) *proxypb.IfrtRequest {
	return &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &proxypb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: exe, ArgsHandles: args, ResultArrayHandle: results, ResultStatusHandle: statusHandle,
		ExecuteOptions: &proxypb.ExecuteOptionsProto{FillStatus: fillStatus},
	}}}
}

func TestCompileAndExecute(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	exe := compileText(t, s, addMul, 2)

	md := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: exe}}})).GetLoadedExecutableMetadataResponse()
	if n := len(md.GetParameterShardings().GetShardings()); n != 2 {
		t.Errorf("%d parameter shardings, want 2", n)
	}
	if n := len(md.GetOutputLayoutsList().GetLayouts()); n != 1 {
		t.Errorf("%d output layouts, want 1", n)
	}
	if got := md.GetOutputMemoryKinds().GetMemoryKindLists(); len(got) != 1 || fmt.Sprint(got[0].GetMemoryKinds()) != "[device]" {
		t.Errorf("output memory kinds = %v", got)
	}
	if got := md.GetDonatedInputIndices().GetDonatedInputIndices(); fmt.Sprint(got) != "[0]" {
		t.Errorf("donated inputs = %v, want [0]", got)
	}

	s.makeArray(1, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(2))
	s.makeArray(2, f32bytes(10, 20, 30, 40), ifrt.F32, ifrt.Shape{4}, h.single(2))
	s.makeArray(3, f32bytes(1, 1, 1, 1), ifrt.F32, ifrt.Shape{4}, h.single(2))
	// First call: the server mints the output handles and describes them.
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableExecuteRequest{LoadedExecutableExecuteRequest: &proxypb.LoadedExecutableExecuteRequest{
		LoadedExecutableHandle: exe, ArgsHandles: []uint64{3, 2},
		ExecuteOptions: &proxypb.ExecuteOptionsProto{NonDonatableInputIndices: []int32{0}},
	}}})
	first := mustOK(t, resp).GetLoadedExecutableExecuteResponse()
	if first.GetStatusHandle() != 0 || len(first.GetOutputs()) != 1 {
		t.Fatalf("first Execute = %v", first)
	}
	out := first.GetOutputs()[0]
	if out.GetArrayHandle() < wire.ServerHandleMin || fmt.Sprint(out.GetShape().GetDims()) != "[4]" || out.GetDtype().GetKind() != proxypb.DTypeProto_KIND_F32 {
		t.Errorf("output = %v", out)
	}
	if got, err := s.fetch(out.GetArrayHandle(), 100, nil); err != nil || fmt.Sprint(f32s(got)) != "[11 21 31 41]" {
		t.Errorf("first result = %v, %v", f32s(got), err)
	}
	// Later calls: client handles, status polled by FetchExecuteResult (v >= 21).
	r2 := execute(t, s, exe, []uint64{1, 2}, []uint64{10}, true)
	if r2.GetStatusHandle() < wire.ServerHandleMin {
		t.Errorf("status handle = %d", r2.GetStatusHandle())
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{LoadedExecutableFetchExecuteResultRequest: &proxypb.LoadedExecutableFetchExecuteResultRequest{ResultStatusHandle: r2.GetStatusHandle()}}}))
	if got, err := s.fetch(10, 101, nil); err != nil || fmt.Sprint(f32s(got)) != "[11 44 99 176]" {
		t.Errorf("second result = %v, %v", f32s(got), err)
	}
	// Argument 1 was donated.
	if del := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_IsArrayDeletedRequest{IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: 1}}})); !del.GetIsArrayDeletedResponse().GetDeleted() {
		t.Error("the donated argument was not deleted")
	}
	// A client status handle, polled with CheckFuture (v < 21 clients).
	mustOK(t, s.call(executeReq(exe, []uint64{10, 2}, []uint64{11}, true, 12)))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: 12}}}))
	// A failing execution records its error under the result and status handles.
	wantErr(t, "execute with a donated argument", s.call(executeReq(exe, []uint64{1, 2}, []uint64{20}, true, 21)), ifrt.ErrInvalidArgument, "deleted")
	wantErr(t, "the failed execution's status", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{LoadedExecutableFetchExecuteResultRequest: &proxypb.LoadedExecutableFetchExecuteResultRequest{ResultStatusHandle: 21}}}), ifrt.ErrInvalidArgument, "deleted")
	wantErr(t, "the failed execution's result", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{20}}}}), ifrt.ErrInvalidArgument, "deleted")

	// Cost analysis answers gocpu's estimate; program text, which gocpu
	// lacks, UNIMPLEMENTED inside the response.
	ca := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableCostAnalysisRequest{LoadedExecutableCostAnalysisRequest: &proxypb.LoadedExecutableCostAnalysisRequest{LoadedExecutableHandle: exe}}}))
	if attrs := ca.GetLoadedExecutableCostAnalysisResponse().GetAttributes().GetAttributes(); attrs["flops"].GetFloatValue() <= 0 {
		t.Errorf("cost analysis = %v, want flops", ca)
	}
	pt := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableHumanReadableProgramTextRequest{LoadedExecutableHumanReadableProgramTextRequest: &proxypb.LoadedExecutableHumanReadableProgramTextRequest{LoadedExecutableHandle: exe}}}))
	if pt.GetLoadedExecutableHumanReadableProgramTextResponse().GetStatus().GetCode() != proxypb.Code_UNIMPLEMENTED {
		t.Errorf("program text = %v, want UNIMPLEMENTED", pt)
	}
	// Delete and destruct.
	isDel := func() bool {
		return mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableIsDeletedRequest{LoadedExecutableIsDeletedRequest: &proxypb.LoadedExecutableIsDeletedRequest{LoadedExecutableHandle: exe}}})).GetLoadedExecutableIsDeletedResponse().GetIsDeleted()
	}
	if isDel() {
		t.Error("a live executable reports deleted")
	}
	dr := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableDeleteRequest{LoadedExecutableDeleteRequest: &proxypb.LoadedExecutableDeleteRequest{LoadedExecutableHandle: exe}}}))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: dr.GetLoadedExecutableDeleteResponse().GetFutureHandle()}}}))
	if !isDel() {
		t.Error("a deleted executable reports live")
	}
	wantErr(t, "execute after delete", s.call(executeReq(exe, []uint64{10, 2}, []uint64{30}, false, 0)), ifrt.ErrInvalidArgument, "deleted")
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableDestructRequest{LoadedExecutableDestructRequest: &proxypb.LoadedExecutableDestructRequest{LoadedExecutableHandle: exe}}}))
	wantErr(t, "metadata after destruct", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: exe}}}), ifrt.ErrNotFound, "")

	// Compile errors.
	bad := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte("ML\xefR bytecode")}, CompileOptions: compileOpts(t, 0)}}})
	wantErr(t, "bytecode of a newer format version", bad, ifrt.ErrUnimplemented, "newer")
	bad = s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::HloProgram"}}}})
	wantErr(t, "an unknown program type", bad, ifrt.ErrUnimplemented, "HloProgram")
	bad = s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::CustomCallProgram"}}}})
	wantErr(t, "a custom-call program without devices", bad, ifrt.ErrInvalidArgument, "empty device list")
	bad = s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: []byte(addMul)}, CompileOptions: compileOpts(t, 0, 0)}}})
	wantErr(t, "a device assignment listing a device twice", bad, ifrt.ErrInvalidArgument, "twice")
}

func TestExecuteSharded(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	exe := compileText(t, s, rowsDouble, 4, 5, 6, 7)
	rows, _ := ifrt.NewTiledSharding(h.devs(4, 5, 6, 7), 4, 1)
	s.makeArray(1, iota32(32), ifrt.F32, ifrt.Shape{8, 4}, rows)
	first := execute(t, s, exe, []uint64{1}, nil, false)
	out := first.GetOutputs()[0]
	sh, err := wire.ShardingFromProto(out.GetSharding(), h.backend.LookupDevice)
	if err != nil {
		t.Fatal(err)
	}
	if !ifrt.EquivalentShardings(sh, rows, ifrt.Shape{8, 4}) {
		t.Errorf("output sharding %v, want %v", sh, rows)
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &proxypb.ReshardArraysRequest{
		ArrayHandles: []uint64{out.GetArrayHandle()}, ArraySpecs: []*proxypb.ArraySpecProto{mustSpec(t, ifrt.F32, ifrt.Shape{8, 4}, h.single(0))},
		CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{2}}}}))
	got, err := s.fetch(2, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range f32s(got) {
		if v != float32(2*i) {
			t.Fatalf("element %d = %v, want %v", i, v, 2*i)
		}
	}
}

func TestDeviceAssignmentAndLayout(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	da := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_GetDefaultDeviceAssignmentRequest{GetDefaultDeviceAssignmentRequest: &proxypb.GetDefaultDeviceAssignmentRequest{NumReplicas: 2, NumPartitions: 4}}})).GetGetDefaultDeviceAssignmentResponse().GetDeviceAssignment()
	if da.GetReplicaCount() != 2 || da.GetComputationCount() != 4 || fmt.Sprint(da.GetComputationDevices()[1].GetReplicaDeviceIds()) != "[1 5]" {
		t.Errorf("device assignment = %v", da)
	}
	wantErr(t, "too many devices", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_GetDefaultDeviceAssignmentRequest{GetDefaultDeviceAssignmentRequest: &proxypb.GetDefaultDeviceAssignmentRequest{NumReplicas: 3, NumPartitions: 4}}}), ifrt.ErrInvalidArgument, "")
	dt, _ := wire.DTypeToProto(ifrt.F32)
	l := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_GetDefaultLayoutRequest{GetDefaultLayoutRequest: &proxypb.GetDefaultLayoutRequest{Dtype: dt, Dims: []int64{2, 3, 4}, DeviceId: 1}}}))
	layout, err := wire.XLALayoutFromBytes(l.GetGetDefaultLayoutResponse().GetSerializedPjrtLayout())
	if err != nil || fmt.Sprint(layout.MinorToMajor) != "[2 1 0]" {
		t.Errorf("default layout = %v, %v", layout, err)
	}
	wantErr(t, "layout on an unknown device", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_GetDefaultLayoutRequest{GetDefaultLayoutRequest: &proxypb.GetDefaultLayoutRequest{Dtype: dt, DeviceId: 42}}}), ifrt.ErrNotFound, "")
}

func compilePlugin(t testing.TB, s *sess, program string) *proxypb.IfrtResponse {
	t.Helper()
	return s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program:        &proxypb.Serialized{TypeName: "xla::ifrt::PluginProgram", Data: []byte("__serialized_plugin_program " + program)},
		CompileOptions: &proxypb.Serialized{TypeName: "xla::ifrt::PluginCompileOptions"},
	}}})
}

func TestPluginPrograms(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) {
		c.PluginPrograms = map[string]proxyserver.PluginHandler{"echoRequest": proxyservertest.EchoPlugin}
	})
	s := h.session(t)
	wantErr(t, "an unknown key", compilePlugin(t, s, `{"noSuchRequest": {}}`), ifrt.ErrInvalidArgument, "Bad PluginProgram")
	wantErr(t, "two keys", compilePlugin(t, s, `{"echoRequest": {}, "x": 1}`), ifrt.ErrInvalidArgument, "Bad PluginProgram")
	wantErr(t, "not JSON", compilePlugin(t, s, `{echo`), ifrt.ErrInvalidArgument, "Bad PluginProgram")
	wantErr(t, "a field the handler refuses", compilePlugin(t, s, `{"echoRequest": {"bogus": 1}}`), ifrt.ErrInvalidArgument, "Bad PluginProgram")

	exe := mustOK(t, compilePlugin(t, s, `{"echoRequest": {}}`)).GetCompileResponse()
	if len(exe.GetAddressableDeviceIds()) != 8 {
		t.Errorf("plugin executable devices = %v", exe.GetAddressableDeviceIds())
	}
	md := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: exe.GetLoadedExecutableHandle()}}})).GetLoadedExecutableMetadataResponse()
	if md.GetOutputLayoutsError() == nil || md.GetDonatedInputIndices() == nil {
		t.Errorf("plugin metadata = %v", md)
	}
	s.makeArray(1, f32bytes(4, 5), ifrt.F32, ifrt.Shape{2}, h.single(0))
	r := execute(t, s, exe.GetLoadedExecutableHandle(), []uint64{1}, nil, true)
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest{LoadedExecutableFetchExecuteResultRequest: &proxypb.LoadedExecutableFetchExecuteResultRequest{ResultStatusHandle: r.GetStatusHandle()}}}))
	if got, err := s.fetch(r.GetOutputs()[0].GetArrayHandle(), 2, nil); err != nil || fmt.Sprint(f32s(got)) != "[4 5]" {
		t.Errorf("echo = %v, %v", f32s(got), err)
	}
	failing := mustOK(t, compilePlugin(t, s, `{"echoRequest": {"fail": 15}}`)).GetCompileResponse()
	wantErr(t, "a failing plugin", s.call(executeReq(failing.GetLoadedExecutableHandle(), nil, nil, true, 0)), ifrt.ErrDataLoss, "failing as asked")
}
