package proxy

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"google.golang.org/protobuf/proto"
)

func testContext(t *testing.T) context.Context {
	ctx := testenv.Context(t, defaultTestTimeout)
	return ctx
}

func dialFake(t *testing.T, f *fakeServer, opts ...Option) *Client {
	t.Helper()
	c, err := f.start(t, opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestDialBuildsClientFromInit(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f, WithInitializationData(ifrt.Attributes{"job": "test"}))

	if p, s := c.Version(); p != 23 || s != 2 {
		t.Errorf("Version() = %d, %d, want 23, 2", p, s)
	}
	if got := c.SessionID(); got != 77 {
		t.Errorf("SessionID() = %d, want 77", got)
	}
	if got := c.Platform(); got.Name != "cpu" || got.RuntimeType != "proxy/fake" {
		t.Errorf("Platform() = %+v", got)
	}
	if got := c.Devices().IDs(); !slices.Equal(got, []ifrt.DeviceID{0, 1}) {
		t.Errorf("Devices() = %v, want [0 1] (id order)", got)
	}
	d, err := c.LookupDevice(1)
	if err != nil || !d.Addressable || d.DefaultMemory == nil || d.DefaultMemory.Kind != ifrt.MemoryKindDevice {
		t.Errorf("LookupDevice(1) = %+v, %v", d, err)
	}
	if _, err := c.LookupDevice(9); !errors.Is(err, ifrt.ErrNotFound) {
		t.Errorf("LookupDevice(9) = %v, want NotFound", err)
	}
	f.mu.Lock()
	md := f.sessionMD
	first := f.requests[0]
	f.mu.Unlock()
	if !proto.Equal(md.GetVersion(), f.version) {
		t.Errorf("session metadata version = %v, want %v", md.GetVersion(), f.version)
	}
	if got := string(md.GetInitializationData().GetAttributes()["job"].GetStringValue()); got != "test" {
		t.Errorf("initialization data job = %q", got)
	}
	if first.GetInitRequest() == nil || first.GetRequestMetadata().GetOpId() != 1 {
		t.Errorf("first request = %v, want Init with op id 1", first)
	}
}

func TestDialRejectsVersionOutsideRange(t *testing.T) {
	f := newFakeServer()
	f.version = &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax + 1}
	_, err := f.start(t)
	if !errors.Is(err, ifrt.ErrFailedPrecondition) {
		t.Fatalf("Dial = %v, want FailedPrecondition", err)
	}
}

// TestDialRetriesUntilTimeout: a server that is never available fails Dial with
// the connect timeout's DEADLINE_EXCEEDED, not the first attempt's UNAVAILABLE.
func TestDialRetriesUntilTimeout(t *testing.T) {
	_, err := Dial(testContext(t), "grpc://"+testenv.RefusingAddress(t), WithConnectTimeout(1500*time.Millisecond))
	if err == nil {
		t.Fatal("Dial to a server that closes every connection succeeded")
	}
	if code := ifrt.CodeOf(err); code != ifrt.DeadlineExceeded || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Dial error %v has code %v, want the connect timeout's DEADLINE_EXCEEDED", err, code)
	}
}

func TestHostBufferRoundTripInChunks(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	data := make([]byte, 2*hostBufferChunk+hostBufferChunk/2)
	for i := range data {
		data[i] = byte(i * 7)
	}
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{int64(len(data))}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	done := 0
	a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, &ifrt.HostBufferOptions{OnDoneWithHostBuffer: func() { done++ }})
	if err != nil {
		t.Fatalf("MakeArrayFromHostBuffer: %v", err)
	}
	if done != 1 {
		t.Errorf("OnDoneWithHostBuffer called %d times", done)
	}
	var h ArrayHandle
	if !a.As(&h) || h == 0 {
		t.Fatalf("As(*ArrayHandle) = %v", h)
	}
	f.mu.Lock()
	sizes := f.chunkSizes[uint64(h)]
	f.mu.Unlock()
	if want := []int{hostBufferChunk, hostBufferChunk, hostBufferChunk / 2}; !slices.Equal(sizes, want) {
		t.Errorf("chunks = %v, want %v", sizes, want)
	}
	back := make([]byte, len(data))
	if err := a.CopyToHostBuffer(ctx, back, nil); err != nil {
		t.Fatalf("CopyToHostBuffer: %v", err)
	}
	if !bytes.Equal(back, data) {
		t.Error("contents changed in the round trip")
	}
	f.waitFor(t, "HostBufferDelete", func() bool { return len(f.deletedHB) == 1 })

	var copyReq *proxypb.CopyToHostBufferRequest
	f.mu.Lock()
	for _, r := range f.requests {
		if x := r.GetCopyToHostBufferRequest(); x != nil {
			copyReq = x
		}
	}
	f.mu.Unlock()
	if got := copyReq.GetByteStrides().GetStrides(); !slices.Equal(got, []int64{1}) {
		t.Errorf("CopyToHostBuffer strides = %v, want explicit dense [1]", got)
	}
	if copyReq.GetHostBufferHandle() == uint64(h) {
		t.Errorf("the read reused the array's handle %d for its host buffer", h)
	}
}

func TestEmptyHostBufferHasNoChunks(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{0, 3}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, nil, spec, nil)
	if err != nil {
		t.Fatalf("MakeArrayFromHostBuffer: %v", err)
	}
	var h ArrayHandle
	a.As(&h)
	f.mu.Lock()
	sizes := f.chunkSizes[uint64(h)]
	f.mu.Unlock()
	if len(sizes) != 0 {
		t.Errorf("an empty buffer went in chunks %v", sizes)
	}
	if err := a.CopyToHostBuffer(ctx, []byte{}, nil); err != nil {
		t.Errorf("CopyToHostBuffer(empty): %v", err)
	}
}

func TestServerErrorsKeepTheirCode(t *testing.T) {
	f := newFakeServer()
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		if req.GetCheckValueReadyRequest() != nil {
			return errorResponse(proxypb.Code_DATA_LOSS, "device lost")
		}
		if req.GetCopyToHostBufferRequest() != nil {
			return &proxypb.IfrtResponse{} // OK, but no content
		}
		return nil
	}
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.S32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = a.Ready().Await(ctx)
	if !errors.Is(err, ifrt.ErrDataLoss) || ifrt.CodeOf(err) != ifrt.DataLoss {
		t.Errorf("Ready = %v, want DataLoss", err)
	}
	if err := a.CopyToHostBuffer(ctx, make([]byte, 8), nil); !errors.Is(err, ifrt.ErrInternal) {
		t.Errorf("CopyToHostBuffer with an empty response = %v, want Internal", err)
	}
	if err := a.CopyToHostBuffer(ctx, make([]byte, 7), nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("CopyToHostBuffer into a short buffer = %v, want InvalidArgument", err)
	}
}

func TestStreamBreakFailsPendingCalls(t *testing.T) {
	f := newFakeServer()
	block := make(chan struct{})
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		if req.GetCheckValueReadyRequest() != nil {
			<-block
			return errorResponse(proxypb.Code_INTERNAL, "too late")
		}
		return nil
	}
	defer close(block)
	disconnected := make(chan error, 2)
	c := dialFake(t, f, WithOnDisconnect(func(err error) { disconnected <- err }))
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.S8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	ready := a.Ready()
	f.waitFor(t, "CheckValueReady", func() bool {
		return slices.ContainsFunc(f.requests, func(r *proxypb.IfrtRequest) bool { return r.GetCheckValueReadyRequest() != nil })
	})
	f.endSession <- errors.New("server going away")

	if err := ready.Await(ctx); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("pending Ready = %v, want Unavailable", err)
	}
	select {
	case err := <-disconnected:
		if !errors.Is(err, ifrt.ErrUnavailable) {
			t.Errorf("on_disconnect got %v", err)
		}
	case <-ctx.Done():
		t.Fatal("on_disconnect never called")
	}
	<-c.Done()
	if err := c.Err(); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("Err() = %v", err)
	}
	if _, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil); !errors.Is(err, ifrt.ErrUnavailable) {
		t.Errorf("call after the break = %v, want Unavailable", err)
	}
	c.Close()
	if len(disconnected) != 0 {
		t.Errorf("on_disconnect called more than once")
	}
}

func TestCloseFailsCallsWithClientClosed(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	spec := ifrt.ArraySpec{DType: ifrt.S8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	if _, err := c.MakeArrayFromHostBuffer(testContext(t), []byte{1}, spec, nil); !errors.Is(err, ifrt.ErrClientClosed) {
		t.Errorf("MakeArrayFromHostBuffer after Close = %v", err)
	}
}

func TestUnreachableArraysAreDestructedInBatches(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	const n = 20
	want := map[uint64]bool{}
	func() {
		for range n {
			a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			var h ArrayHandle
			a.As(&h)
			want[uint64(h)] = true
		}
	}()
	deadline := time.Now().Add(defaultTestTimeout)
	for {
		runtime.GC()
		f.mu.Lock()
		got, batches := 0, len(f.destructed)
		for _, b := range f.destructed {
			for _, h := range b {
				if want[h] {
					got++
				}
			}
		}
		f.mu.Unlock()
		if got == n {
			if batches >= n {
				t.Errorf("%d handles went in %d requests; want batching", n, batches)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d unreachable arrays were destructed", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDeleteSendsDeleteThenCheckFuture(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Delete().Await(ctx); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if !a.IsDeleted() {
		t.Error("IsDeleted() = false")
	}
	if err := a.CopyToHostBuffer(ctx, []byte{0}, nil); !errors.Is(err, ifrt.ErrArrayDeleted) {
		t.Errorf("CopyToHostBuffer after Delete = %v", err)
	}
	f.mu.Lock()
	var kinds []string
	for _, r := range f.requests {
		switch {
		case r.GetDeleteArrayRequest() != nil:
			kinds = append(kinds, "delete")
		case r.GetCheckFutureRequest() != nil:
			if r.GetCheckFutureRequest().GetFutureHandle() == 1<<48 {
				kinds = append(kinds, "check")
			}
		}
	}
	f.mu.Unlock()
	if !slices.Equal(kinds, []string{"delete", "check"}) {
		t.Errorf("requests = %v, want delete then check", kinds)
	}
}

func TestOpIDsIncrease(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	for range 5 {
		if _, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil); err != nil {
			t.Fatal(err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, r := range f.requests {
		if got := r.GetRequestMetadata().GetOpId(); got != uint64(i+1) {
			t.Errorf("request %d has op id %d", i, got)
		}
	}
}

func TestEncodeProgram(t *testing.T) {
	devs := ifrt.DeviceList{{ID: 4}, {ID: 6}, {ID: 5}, {ID: 7}}
	prog, opts, err := encodeProgram(&ifrt.MLIRProgram{Module: []byte("module {}")}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	if prog.GetTypeName() != "xla::ifrt::XlaProgram" || string(prog.GetData()) != "module {}" || opts.GetTypeName() != "xla::ifrt::XlaCompileOptions" {
		t.Errorf("program %v, options type %q", prog, opts.GetTypeName())
	}
	var xo proxypb.XlaCompileOptionsProto
	if err := proto.Unmarshal(opts.GetData(), &xo); err != nil {
		t.Fatal(err)
	}
	b := xo.GetCompileOptions().GetExecutableBuildOptions()
	if b.GetNumReplicas() != 1 || b.GetNumPartitions() != 4 || !b.GetUseSpmdPartitioning() {
		t.Errorf("build options = %v", b)
	}
	var got []int64
	for _, cd := range b.GetDeviceAssignment().GetComputationDevices() {
		got = append(got, cd.GetReplicaDeviceIds()...)
	}
	if !slices.Equal(got, []int64{4, 6, 5, 7}) {
		t.Errorf("device assignment = %v", got)
	}

	// Two replicas of two partitions: replica-major order.
	two, _ := proto.Marshal(&xlapb.CompileOptionsProto{ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{NumReplicas: 2, NumPartitions: 2}})
	_, opts, err = encodeProgram(&ifrt.MLIRProgram{Module: []byte("m")}, &ifrt.CompileOptions{Devices: devs, XLA: two})
	if err != nil {
		t.Fatal(err)
	}
	if err := proto.Unmarshal(opts.GetData(), &xo); err != nil {
		t.Fatal(err)
	}
	da := xo.GetCompileOptions().GetExecutableBuildOptions().GetDeviceAssignment()
	if c0, c1 := da.GetComputationDevices()[0].GetReplicaDeviceIds(), da.GetComputationDevices()[1].GetReplicaDeviceIds(); !slices.Equal(c0, []int64{4, 5}) || !slices.Equal(c1, []int64{6, 7}) {
		t.Errorf("2x2 assignment = %v %v", c0, c1)
	}

	prog, opts, err = encodeProgram(&ifrt.PluginProgram{Data: []byte(`{"a":1}`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if prog.GetTypeName() != "xla::ifrt::PluginProgram" || string(prog.GetData()) != `__serialized_plugin_program {"a":1}` ||
		opts.GetTypeName() != "xla::ifrt::PluginCompileOptions" || len(opts.GetData()) != 0 {
		t.Errorf("plugin program encoded as %v / %v", prog, opts)
	}
}

func TestMLIRSignature(t *testing.T) {
	src := `module @jit_f attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}", jax.buffer_donor = true}, %arg1: tensor<i1>, %arg2: tensor<3xui8>) -> (tensor<4x2xbf16> {jax.result_info = "(a, b)"}, tensor<complex<f32>>) {
    return %0, %1 : tensor<4x2xbf16>, tensor<complex<f32>>
  }
}`
	params, results, ok := mlirSignature([]byte(src))
	if !ok {
		t.Fatal("signature not read")
	}
	wantP := []typeInfo{{ifrt.F32, ifrt.Shape{4, 2}}, {ifrt.PRED, ifrt.Shape{}}, {ifrt.U8, ifrt.Shape{3}}}
	wantR := []typeInfo{{ifrt.BF16, ifrt.Shape{4, 2}}, {ifrt.C64, ifrt.Shape{}}}
	if diff := cmp.Diff(wantP, params, cmp.AllowUnexported(typeInfo{})); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantR, results, cmp.AllowUnexported(typeInfo{})); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	_, results, ok = mlirSignature([]byte(`func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {`))
	if !ok || len(results) != 1 || results[0].dtype != ifrt.S32 {
		t.Errorf("single result: %v %v", results, ok)
	}
	for _, bad := range []string{"", "func.func @main(%a: tensor<?xf32>) -> tensor<2xf32>", "func.func @main(%a: tuple<>)"} {
		if _, _, ok := mlirSignature([]byte(bad)); ok {
			t.Errorf("mlirSignature(%q) succeeded", bad)
		}
	}
}

func TestCompileAndExecuteProtocol(t *testing.T) {
	f := newFakeServer()
	const (
		exeHandle    = 1<<48 + 5
		readyHandle  = 1<<48 + 6
		outHandle    = 1<<48 + 10
		statusHandle = 1<<48 + 11
	)
	var executes []*proxypb.LoadedExecutableExecuteRequest
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		switch r := req.Request.(type) {
		case *proxypb.IfrtRequest_CompileRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CompileResponse{CompileResponse: &proxypb.CompileResponse{
				LoadedExecutableHandle: exeHandle, Name: "jit_add_mul", DeviceIds: []int32{0}, AddressableDeviceIds: []int32{0},
				ReadyFutureHandle: proto.Uint64(readyHandle),
			}}}
		case *proxypb.IfrtRequest_LoadedExecutableMetadataRequest:
			repl := &xlapb.OpSharding{Type: xlapb.OpSharding_REPLICATED}
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableMetadataResponse{LoadedExecutableMetadataResponse: &proxypb.LoadedExecutableMetadataResponse{
				ParameterShardings: &proxypb.LoadedExecutableMetadataResponse_ShardingList{Shardings: []*xlapb.OpSharding{repl, repl}},
				OutputShardings:    &proxypb.LoadedExecutableMetadataResponse_ShardingList{Shardings: []*xlapb.OpSharding{repl}},
				OutputMemoryKinds: &proxypb.LoadedExecutableMetadataResponse_OutputMemoryKind{
					MemoryKindLists: []*proxypb.LoadedExecutableMetadataResponse_MemoryKindList{{MemoryKinds: []string{"device"}}},
				},
				DonatedInputIndicesOneof: &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices_{
					DonatedInputIndices: &proxypb.LoadedExecutableMetadataResponse_DonatedInputIndices{DonatedInputIndices: []uint32{0}},
				},
			}}}
		case *proxypb.IfrtRequest_LoadedExecutableExecuteRequest:
			f.mu.Lock()
			executes = append(executes, r.LoadedExecutableExecuteRequest)
			f.mu.Unlock()
			resp := &proxypb.LoadedExecutableExecuteResponse{}
			if len(r.LoadedExecutableExecuteRequest.GetResultArrayHandle()) == 0 {
				dt, _ := wire.DTypeToProto(ifrt.F32)
				d0 := &ifrt.Device{ID: 0}
				sh, _ := wire.ShardingToProto(ifrt.NewSingleDeviceSharding(d0, ""))
				resp.Outputs = []*proxypb.LoadedExecutableExecuteResponse_Output{{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{4}), Sharding: sh, ArrayHandle: outHandle}}
				if r.LoadedExecutableExecuteRequest.GetExecuteOptions().GetFillStatus() {
					resp.StatusHandle = statusHandle
				}
			}
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableExecuteResponse{LoadedExecutableExecuteResponse: resp}}
		case *proxypb.IfrtRequest_LoadedExecutableFetchExecuteResultRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableFetchExecuteResultResponse{
				LoadedExecutableFetchExecuteResultResponse: &proxypb.LoadedExecutableFetchExecuteResultResponse{},
			}}
		case *proxypb.IfrtRequest_LoadedExecutableDestructRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableDestructResponse{
				LoadedExecutableDestructResponse: &proxypb.LoadedExecutableDestructResponse{},
			}}
		}
		return nil
	}
	c := dialFake(t, f)
	ctx := testContext(t)
	const src = `func.func public @main(%arg0: tensor<4xf32> {jax.buffer_donor = true}, %arg1: tensor<4xf32>) -> (tensor<4xf32>) {`
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(src)}, &ifrt.CompileOptions{Devices: c.Devices()[:1]})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if exe.Name() != "jit_add_mul" || !exe.Devices().Equal(c.Devices()[:1]) {
		t.Errorf("executable %q on %v", exe.Name(), exe.Devices())
	}
	if ps := exe.Parameters(); len(ps) != 2 || ps[0].DType != ifrt.F32 || !ps[1].Shape.Equal(ifrt.Shape{4}) || ps[0].OpSharding == nil {
		t.Errorf("Parameters() = %+v", ps)
	}
	if outs := exe.Outputs(); len(outs) != 1 || outs[0].DType != ifrt.F32 || outs[0].MemoryKind != "device" {
		t.Errorf("Outputs() = %+v", outs)
	}
	if got := exe.DonatableParameters(); !slices.Equal(got, []int{0}) {
		t.Errorf("DonatableParameters() = %v", got)
	}
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	x, _ := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), spec, nil)
	y, _ := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), spec, nil)

	res, err := exe.Execute(ctx, []ifrt.Array{x, y}, &ifrt.ExecuteOptions{NonDonatableInputs: []int{0}, FillStatus: true})
	if err != nil {
		t.Fatalf("first Execute: %v", err)
	}
	if err := res.Status.Await(ctx); err != nil {
		t.Errorf("status: %v", err)
	}
	var h ArrayHandle
	if res.Outputs[0].As(&h); h != outHandle || x.IsDeleted() {
		t.Errorf("first execution: output handle %d, x deleted %v", h, x.IsDeleted())
	}
	res, err = exe.Execute(ctx, []ifrt.Array{x, y}, nil)
	if err != nil {
		t.Fatalf("second Execute: %v", err)
	}
	if res.Outputs[0].As(&h); h >= 1<<48 || !res.Outputs[0].Shape().Equal(ifrt.Shape{4}) {
		t.Errorf("second execution: output handle %d (want client-generated), shape %v", h, res.Outputs[0].Shape())
	}
	if !x.IsDeleted() || y.IsDeleted() {
		t.Errorf("after donation: x deleted %v, y deleted %v", x.IsDeleted(), y.IsDeleted())
	}
	if _, err := exe.Execute(ctx, []ifrt.Array{x, y}, nil); !errors.Is(err, ifrt.ErrArrayDeleted) {
		t.Errorf("Execute with a donated argument = %v", err)
	}
	if _, err := exe.Execute(ctx, []ifrt.Array{y}, nil); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("Execute with one argument = %v", err)
	}
	if err := exe.Delete().Await(ctx); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := exe.Execute(ctx, []ifrt.Array{y, y}, nil); !errors.Is(err, ifrt.ErrExecutableDeleted) {
		t.Errorf("Execute after Delete = %v", err)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	var sawReady, sawFetch bool
	for _, r := range f.requests {
		sawReady = sawReady || r.GetCheckFutureRequest().GetFutureHandle() == readyHandle
		sawFetch = sawFetch || r.GetLoadedExecutableFetchExecuteResultRequest().GetResultStatusHandle() == statusHandle
	}
	if !sawReady || !sawFetch {
		t.Errorf("CheckFuture(ready) sent: %v; FetchExecuteResult(status) sent: %v", sawReady, sawFetch)
	}
	if len(executes) != 2 {
		t.Fatalf("%d executions reached the server, want 2", len(executes))
	}
	if got := executes[0].GetExecuteOptions().GetNonDonatableInputIndices(); !slices.Equal(got, []int32{0}) {
		t.Errorf("non-donatable inputs sent = %v", got)
	}
	if n := len(executes[1].GetResultArrayHandle()); n != 1 || executes[1].GetResultStatusHandle() != 0 {
		t.Errorf("second execution sent %d result handles and status handle %d", n, executes[1].GetResultStatusHandle())
	}
}

func TestShardedPutsGoShardByShard(t *testing.T) {
	f := newFakeServer()
	var got *proxypb.MakeArraysFromHostBufferShardsRequest
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		r := req.GetMakeArraysFromHostBufferShardsRequest()
		if r == nil {
			return nil
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, hb := range r.GetSpecs()[0].GetHostBuffers() {
			for f.hostBuffers[hb.GetHostBufferHandle()] == nil {
				f.cond.Wait()
			}
		}
		got = r
		return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_MakeArraysFromHostBufferShardsResponse{
			MakeArraysFromHostBufferShardsResponse: &proxypb.MakeArraysFromHostBufferShardsResponse{ArrayHandles: r.GetArrayHandles()},
		}}
	}
	c := dialFake(t, f)
	ctx := testContext(t)
	// Rows split in two, on two devices; the host buffer is column-major.
	s, err := ifrt.NewTiledSharding(c.Devices(), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte{0, 2, 1, 3} // [[0 1] [2 3]] stored column by column
	a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{2, 2}, Sharding: s},
		&ifrt.HostBufferOptions{ByteStrides: []int64{1, 2}})
	if err != nil {
		t.Fatalf("MakeArrayFromHostBuffer: %v", err)
	}
	spec := got.GetSpecs()[0]
	if n := len(spec.GetHostBuffers()); n != 2 {
		t.Fatalf("%d host buffers, want 2", n)
	}
	f.mu.Lock()
	b0 := f.hostBuffers[spec.GetHostBuffers()[0].GetHostBufferHandle()]
	b1 := f.hostBuffers[spec.GetHostBuffers()[1].GetHostBufferHandle()]
	f.mu.Unlock()
	if !bytes.Equal(b0, []byte{0, 1}) || !bytes.Equal(b1, []byte{2, 3}) {
		t.Errorf("shard buffers %v %v, want [0 1] [2 3]", b0, b1)
	}
	if i0, i1 := spec.GetAddressableShardIndices()[0].GetIndices(), spec.GetAddressableShardIndices()[1].GetIndices(); !slices.Equal(i0, []int64{0}) || !slices.Equal(i1, []int64{1}) {
		t.Errorf("shard indices %v %v", i0, i1)
	}
	var h ArrayHandle
	if a.As(&h); uint64(h) != spec.GetHostBuffers()[0].GetHostBufferHandle() || !slices.Equal(got.GetArrayHandles(), []uint64{uint64(h)}) {
		t.Errorf("array handle %d, request handles %v; want the first buffer's", h, got.GetArrayHandles())
	}
	if got := spec.GetHostBuffers()[0].GetShape().GetDims(); !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("shard shape %v", got)
	}

	// A replicated array still goes as one buffer.
	r, _ := ifrt.NewHloSharding(c.Devices(), "", ifrt.Replicated())
	if _, err := c.MakeArrayFromHostBuffer(ctx, []byte{1, 2}, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{2}, Sharding: r}, nil); err != nil {
		t.Fatalf("replicated MakeArrayFromHostBuffer: %v", err)
	}
}

func TestAbandonedExecuteFreesItsOutputs(t *testing.T) {
	f := newFakeServer()
	release := make(chan struct{})
	const out = 1<<48 + 42
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		switch req.Request.(type) {
		case *proxypb.IfrtRequest_CompileRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CompileResponse{CompileResponse: &proxypb.CompileResponse{
				LoadedExecutableHandle: 1<<48 + 1, DeviceIds: []int32{0},
			}}}
		case *proxypb.IfrtRequest_LoadedExecutableMetadataRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableMetadataResponse{
				LoadedExecutableMetadataResponse: &proxypb.LoadedExecutableMetadataResponse{},
			}}
		case *proxypb.IfrtRequest_LoadedExecutableExecuteRequest:
			<-release
			dt, _ := wire.DTypeToProto(ifrt.F32)
			sh, _ := wire.ShardingToProto(ifrt.NewSingleDeviceSharding(&ifrt.Device{ID: 0}, ""))
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableExecuteResponse{
				LoadedExecutableExecuteResponse: &proxypb.LoadedExecutableExecuteResponse{Outputs: []*proxypb.LoadedExecutableExecuteResponse_Output{
					{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{}), Sharding: sh, ArrayHandle: out},
				}},
			}}
		}
		return nil
	}
	c := dialFake(t, f)
	exe, err := c.Compile(testContext(t), &ifrt.MLIRProgram{Module: []byte("module {}")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(testContext(t), 50*time.Millisecond)
	defer cancel()
	if _, err := exe.Execute(ctx, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute = %v, want the context's deadline", err)
	}
	close(release)
	f.waitFor(t, "DestructArray of the abandoned output", func() bool {
		for _, b := range f.destructed {
			if slices.Contains(b, out) {
				return true
			}
		}
		return false
	})
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	f := newFakeServer()
	c := dialFake(t, f)
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	for range 3 {
		a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1, 2, 3, 4}, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.CopyToHostBuffer(ctx, make([]byte, 4), nil); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	ours := func() []string {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var found []string
		for _, g := range bytes.Split(buf, []byte("\n\n")) {
			client := bytes.Contains(g, []byte("pathways/proxy.(*Client)")) || bytes.Contains(g, []byte("pathways/proxy.(*session)")) ||
				bytes.Contains(g, []byte("pathways/proxy.(*array)"))
			if client && !bytes.Contains(g, []byte("TestCloseLeavesNoGoroutines")) {
				found = append(found, string(g))
			}
		}
		return found
	}
	deadline := time.Now().Add(5 * time.Second)
	for left := ours(); len(left) > 0; left = ours() {
		if time.Now().After(deadline) {
			t.Fatalf("goroutines of the client outlive Close:\n%s", left[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestUnknownDonationAsksTheServer(t *testing.T) {
	f := newFakeServer()
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		switch r := req.Request.(type) {
		case *proxypb.IfrtRequest_CompileRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_CompileResponse{CompileResponse: &proxypb.CompileResponse{
				LoadedExecutableHandle: 1<<48 + 1, DeviceIds: []int32{0},
			}}}
		case *proxypb.IfrtRequest_LoadedExecutableMetadataRequest:
			// No donated_input_indices: donation unknown.
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableMetadataResponse{
				LoadedExecutableMetadataResponse: &proxypb.LoadedExecutableMetadataResponse{},
			}}
		case *proxypb.IfrtRequest_LoadedExecutableExecuteRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_LoadedExecutableExecuteResponse{
				LoadedExecutableExecuteResponse: &proxypb.LoadedExecutableExecuteResponse{},
			}}
		case *proxypb.IfrtRequest_IsArrayDeletedRequest:
			return &proxypb.IfrtResponse{Response: &proxypb.IfrtResponse_IsArrayDeletedResponse{
				IsArrayDeletedResponse: &proxypb.IsArrayDeletedResponse{Deleted: r.IsArrayDeletedRequest.GetArrayHandle()%2 == 1},
			}}
		}
		return nil
	}
	c := dialFake(t, f)
	ctx := testContext(t)
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte("module {}")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{1}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	var args []ifrt.Array
	for range 2 {
		a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1}, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, a)
	}
	if args[0].IsDeleted() {
		t.Fatal("IsDeleted before any execution")
	}
	if _, err := exe.Execute(ctx, args, nil); err != nil {
		t.Fatal(err)
	}
	for i, a := range args {
		var h ArrayHandle
		a.As(&h)
		if want := uint64(h)%2 == 1; a.IsDeleted() != want {
			t.Errorf("arg %d (handle %d): IsDeleted() = %v, want the server's %v", i, h, !want, want)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.GetIsArrayDeletedRequest() != nil {
			n++
		}
	}
	if n < 2 {
		t.Errorf("%d IsArrayDeleted requests, want one per argument", n)
	}
}

func TestAsyncDispatchReportsErrorsOnTheResults(t *testing.T) {
	f := newFakeServer()
	release := make(chan struct{})
	f.handle = func(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
		if req.GetReshardArraysRequest() != nil {
			<-release
			return errorResponse(proxypb.Code_RESOURCE_EXHAUSTED, "out of device memory")
		}
		return nil
	}
	c := dialFake(t, f, WithAsyncDispatch())
	ctx := testContext(t)
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
	a, err := c.MakeArrayFromHostBuffer(ctx, []byte{1, 2}, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Sharding = ifrt.NewSingleDeviceSharding(c.Devices()[1], "")
	out, err := c.Reshard(ctx, []ifrt.Array{a}, []ifrt.ArraySpec{spec}, ifrt.DonateInput)
	if err != nil {
		t.Fatalf("Reshard returned %v before the server answered", err)
	}
	if !a.IsDeleted() {
		t.Error("the donated input is alive after dispatch")
	}
	close(release)
	if err := out[0].Ready().Await(ctx); !errors.Is(err, ifrt.ErrResourceExhausted) {
		t.Errorf("Ready of the result = %v, want the server's ResourceExhausted", err)
	}
}

func TestAsyncUploadsOutliveTheCall(t *testing.T) {
	for _, sem := range []ifrt.HostBufferSemantics{ifrt.ImmutableOnlyDuringCall, ifrt.ImmutableUntilTransferCompletes} {
		t.Run(sem.String(), func(t *testing.T) {
			f := newFakeServer()
			f.storeGate = make(chan struct{})
			c := dialFake(t, f, WithAsyncDispatch())
			ctx := testContext(t)
			spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}
			data := []byte{1, 2, 3}
			doneCalled := make(chan struct{})
			a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, &ifrt.HostBufferOptions{
				Semantics: sem, OnDoneWithHostBuffer: func() { close(doneCalled) },
			})
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-doneCalled:
				if sem != ifrt.ImmutableOnlyDuringCall {
					t.Error("OnDoneWithHostBuffer before the upload finished")
				}
			default:
				if sem == ifrt.ImmutableOnlyDuringCall {
					t.Error("OnDoneWithHostBuffer not called by the return of an ImmutableOnlyDuringCall put")
				}
			}
			if sem == ifrt.ImmutableOnlyDuringCall {
				data[0] = 99 // the caller owns it again
			}
			close(f.storeGate)
			<-doneCalled
			var h ArrayHandle
			a.As(&h)
			// The fake server answers requests concurrently, without the
			// real one's ordering: wait for the array to exist there.
			f.waitFor(t, "the array", func() bool { return f.arrays[uint64(h)] != nil })
			got := make([]byte, 3)
			if err := a.CopyToHostBuffer(ctx, got, nil); err != nil || !bytes.Equal(got, []byte{1, 2, 3}) {
				t.Errorf("contents %v, %v; want [1 2 3]", got, err)
			}
		})
	}
}
