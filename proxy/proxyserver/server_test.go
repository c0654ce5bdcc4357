package proxyserver_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

func TestConfigValidate(t *testing.T) {
	backend, _ := gocpu.New(gocpu.Config{})
	defer backend.Close()
	for _, tc := range []struct {
		name string
		cfg  proxyserver.Config
	}{
		{"no backend", proxyserver.Config{}},
		{"negative size", proxyserver.Config{Backend: backend, MaxHostBufferSize: -1}},
		{"nil plugin handler", proxyserver.Config{Backend: backend, PluginPrograms: map[string]proxyserver.PluginHandler{"x": nil}}},
	} {
		if _, err := proxyserver.New(tc.cfg); !errors.Is(err, ifrt.ErrInvalidArgument) {
			t.Errorf("%s: New error = %v, want InvalidArgument", tc.name, err)
		}
	}
	if _, err := proxyserver.New(proxyserver.Config{Backend: backend}); err != nil {
		t.Errorf("New with defaults: %v", err)
	}
}

func TestLifecycle(t *testing.T) {
	checkGoroutines(t)
	backend, _ := gocpu.New(gocpu.Config{})
	defer backend.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := proxyserver.New(proxyserver.Config{Backend: backend, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	select {
	case <-srv.Ready():
	case <-time.After(testTimeout):
		t.Fatal("the server never became ready")
	}
	ctx := ctxT(t)
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve after Shutdown = %v, want nil", err)
	}
	if err := srv.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("Close after Shutdown: %v", err)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	lis2, _ := net.Listen("tcp", "127.0.0.1:0")
	if err := srv.Serve(lis2); !errors.Is(err, proxyserver.ErrServerClosed) {
		t.Errorf("Serve after Close = %v, want ErrServerClosed", err)
	}

	// Close while serving.
	srv2, _ := proxyserver.New(proxyserver.Config{Backend: backend, Logger: quiet})
	lis3, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() { done <- srv2.Serve(lis3) }()
	<-srv2.Ready()
	time.Sleep(10 * time.Millisecond)
	srv2.Close()
	if err := <-done; !errors.Is(err, proxyserver.ErrServerClosed) {
		t.Errorf("Serve during Close = %v, want ErrServerClosed", err)
	}
}

func TestShutdownClosesStuckSessions(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	// A request that blocks forever: its host buffer never arrives. Requests
	// are planned in order, so once the Init after it is answered, it is in
	// progress.
	op := s.send(makeArrayReq(t, 5, ifrt.F32, ifrt.Shape{2}, h.single(0)))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
	ctx := testenv.Context(t, 100*time.Millisecond)
	if err := h.srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a session open = %v, want the context's error", err)
	}
	<-s.ended
	_ = op
	h.expectFreed(t)
}

func TestGetVersion(t *testing.T) {
	h := newHarness(t, nil)
	v := func(p, s int32) *proxypb.IfrtProxyVersion {
		return &proxypb.IfrtProxyVersion{ProtocolVersion: p, IfrtSerdesVersionNumber: s}
	}
	resp, err := h.client.GetVersion(ctxT(t), &proxypb.GrpcGetVersionRequest{MinVersion: v(16, 0), MaxVersion: v(25, 3)})
	if err != nil || resp.GetVersion().GetProtocolVersion() != 25 || resp.GetVersion().GetIfrtSerdesVersionNumber() != 3 {
		t.Errorf("GetVersion([16,25]) = %v, %v; want 25, serdes 3", resp, err)
	}
	resp, err = h.client.GetVersion(ctxT(t), &proxypb.GrpcGetVersionRequest{MinVersion: v(16, 0), MaxVersion: v(40, 9)})
	if err != nil || resp.GetVersion().GetProtocolVersion() != wire.ProtocolMax {
		t.Errorf("GetVersion([16,40]) = %v, %v; want %d", resp, err, wire.ProtocolMax)
	}
	_, err = h.client.GetVersion(ctxT(t), &proxypb.GrpcGetVersionRequest{MinVersion: v(3, 0), MaxVersion: v(12, 0)})
	if grpcstatus.Code(err) != codes.InvalidArgument {
		t.Errorf("GetVersion([3,12]) error = %v, want InvalidArgument", err)
	}
	if !strings.Contains(h.logs.String(), "client_protocol_max=25") {
		t.Errorf("the client's range is not logged:\n%s", h.logs.String())
	}
}

func TestSessionNeedsMetadata(t *testing.T) {
	h := newHarness(t, nil)
	stream, err := h.client.IfrtSession(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	stream.Send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}})
	if _, err := stream.Recv(); grpcstatus.Code(err) != codes.InvalidArgument {
		t.Errorf("a session without metadata: %v, want InvalidArgument", err)
	}
}

func TestInit(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	r := s.init
	if r.GetPlatformName() != "cpu" || len(r.GetAllDevices()) != 8 || len(r.GetPrimaryDeviceIds()) != 8 || len(r.GetAddressableDeviceIds()) != 8 {
		t.Fatalf("InitResponse = %v", r)
	}
	mems := map[int32]string{}
	for _, m := range r.GetMemories() {
		mems[m.GetId()] = m.GetMemorySpaceKind()
	}
	for _, d := range r.GetAllDevices() {
		if d.GetPlatformName() != "cpu" || d.DefaultMemoryId == nil || mems[d.GetDefaultMemoryId()] != "device" {
			t.Errorf("device %v: platform %q, default memory %v", d.GetId(), d.GetPlatformName(), d.DefaultMemoryId)
		}
		for _, id := range d.GetMemoryIds() {
			if _, ok := mems[id]; !ok {
				t.Errorf("device %d lists unknown memory %d", d.GetId(), id)
			}
		}
	}
	// jax.export fails without serialize_with_sdy ("Unknown attribute").
	attrs := r.GetClientAttributes().GetAttributes()
	if !attrs["serialize_with_sdy"].GetBoolValue() || attrs["supports_executable_serialization"] == nil {
		t.Errorf("client attributes %v lack serialize_with_sdy = true or supports_executable_serialization", attrs)
	}
	if s.id == 0 {
		t.Error("session id 0")
	}
	if other := h.session(t); other.id == s.id {
		t.Error("two sessions share an id")
	}
}

func TestHostBufferRoundTrip(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	data := iota32(3 << 18) // 3 MiB: several chunks
	s.makeArray(1, data, ifrt.F32, ifrt.Shape{3 << 18}, h.single(2))
	got, err := s.fetch(1, 2, []int64{4})
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("fetch = %d bytes, %v", len(got), err)
	}
	// An empty array: the lookup still sends one message.
	s.makeArray(3, nil, ifrt.F32, ifrt.Shape{0, 4}, h.single(0))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 3, HostBufferHandle: 4}}}))
	if data, n, err := s.lookup(4); err != nil || len(data) != 0 || n < 1 {
		t.Errorf("lookup of an empty buffer = %d bytes in %d messages, %v", len(data), n, err)
	}
	// Strided copies both ways: a 2x3 array sent column-major.
	colMajor := f32bytes(0, 3, 1, 4, 2, 5)
	if err := s.store(5, colMajor); err != nil {
		t.Fatal(err)
	}
	req := makeArrayReq(t, 5, ifrt.F32, ifrt.Shape{2, 3}, h.single(1))
	req.GetMakeArrayFromHostBufferRequest().ByteStrides = &proxypb.ByteStrides{Strides: []int64{4, 8}}
	mustOK(t, s.call(req))
	if got, err := s.fetch(5, 6, []int64{12, 4}); err != nil || fmt.Sprint(f32s(got)) != "[0 1 2 3 4 5]" {
		t.Errorf("row-major fetch = %v, %v", f32s(got), err)
	}
	// Errors of the host buffer RPCs.
	if _, _, err := s.lookup(99); grpcstatus.Code(err) != codes.NotFound {
		t.Errorf("lookup of an unknown buffer: %v", err)
	}
	if _, err := h.client.HostBufferDelete(ctxT(t), &proxypb.GrpcHostBufferDeleteRequest{SessionId: s.id, Handle: 99}); grpcstatus.Code(err) != codes.NotFound {
		t.Errorf("delete of an unknown buffer: %v", err)
	}
	if err := s.store(7, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := s.store(7, []byte{1}); grpcstatus.Code(err) != codes.AlreadyExists {
		t.Errorf("storing a handle twice: %v", err)
	}
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: 424242, Handle: 8, BufferSize: 0})
	st, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.HostBufferMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CloseAndRecv(); grpcstatus.Code(err) != codes.NotFound {
		t.Errorf("store into an unknown session: %v", err)
	}
}

func TestHostBufferArrivesLate(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	// The array is requested, then used, before its bytes arrive.
	mk := s.send(makeArrayReq(t, 10, ifrt.F32, ifrt.Shape{4}, h.single(0)))
	cp := s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 10, HostBufferHandle: 11}}})
	// Requests after them are not held up.
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
	if !s.pending(cp, 20*time.Millisecond) {
		t.Fatal("the copy finished before its array's host buffer arrived")
	}
	if err := s.store(10, f32bytes(1, 2, 3, 4)); err != nil {
		t.Fatal(err)
	}
	mustOK(t, s.wait(mk))
	mustOK(t, s.wait(cp))
	if got, _, err := s.lookup(11); err != nil || fmt.Sprint(f32s(got)) != "[1 2 3 4]" {
		t.Errorf("lookup = %v, %v", f32s(got), err)
	}
}

func TestSessionEndUnblocksWaiters(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	s.makeArray(1, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, h.single(0))
	s.send(makeArrayReq(t, 2, ifrt.F32, ifrt.Shape{2}, h.single(0))) // waits forever
	s.close()
	h.expectFreed(t)
	if !strings.Contains(h.logs.String(), "ifrt proxy session ended") {
		t.Error("the session's end is not logged")
	}
}

func TestUnknownHandles(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	wantErr(t, "copy of an unknown array", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 77, HostBufferHandle: 1}}}), ifrt.ErrNotFound, "Unknown array handle: 77")
	wantErr(t, "unknown future", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: 1 << 50}}}), ifrt.ErrNotFound, "Unknown future handle")
	wantErr(t, "unknown executable", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedExecutableMetadataRequest{LoadedExecutableMetadataRequest: &proxypb.LoadedExecutableMetadataRequest{LoadedExecutableHandle: 3}}}), ifrt.ErrNotFound, "Unknown loaded executable handle")
	wantErr(t, "destruct of unknown arrays", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DestructArrayRequest{DestructArrayRequest: &proxypb.DestructArrayRequest{ArrayHandle: []uint64{5, 6}}}}), ifrt.ErrNotFound, "5, 6")
	// The error of a request with client result handles is recorded under them.
	wantErr(t, "replicated shard of an unknown array", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
		ArrayHandle: 77, ResultHandle: 20, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}), ifrt.ErrNotFound, "77")
	wantErr(t, "use of a handle whose creation failed", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{20}}}}), ifrt.ErrNotFound, "Unknown array handle: 77")
	// Handles the client may not choose.
	wantErr(t, "a server-range result handle", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
		ArrayHandle: 20, ResultHandle: 1 << 49, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}), ifrt.ErrInvalidArgument, "not a client handle")
	wantErr(t, "a handle in use", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
		ArrayHandle: 20, ResultHandle: 20, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}), ifrt.ErrAlreadyExists, "in use")
	// The session is still up.
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
}

func TestUnknownRequestKind(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	wantErr(t, "an empty request", s.call(&proxypb.IfrtRequest{}), ifrt.ErrUnimplemented, "unimplemented request type")
	// A request kind from a newer protocol: oneof member 99, unknown to us.
	req := &proxypb.IfrtRequest{}
	req.ProtoReflect().SetUnknown(protowire.AppendBytes(protowire.AppendTag(nil, 99, protowire.BytesType), nil))
	wantErr(t, "an unknown request kind", s.call(req), ifrt.ErrUnimplemented, "unimplemented request type")
	wantErr(t, "host callbacks", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_LoadedHostCallbackPollRequest{LoadedHostCallbackPollRequest: &proxypb.LoadedHostCallbackPollRequest{}}}), ifrt.ErrUnimplemented, "")
	wantErr(t, "bitcast", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_BitcastArraysRequest{BitcastArraysRequest: &proxypb.BitcastArraysRequest{}}}), ifrt.ErrUnimplemented, "Bitcast")
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
}

func TestBadInput(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	huge := makeArrayReq(t, 1, ifrt.F32, ifrt.Shape{1 << 40, 1 << 30}, h.single(0))
	wantErr(t, "an overflowing shape", s.call(huge), ifrt.ErrInvalidArgument, "")
	big := makeArrayReq(t, 2, ifrt.F32, ifrt.Shape{1 << 40}, h.single(0))
	wantErr(t, "a buffer over the limit", s.call(big), ifrt.ErrResourceExhausted, "limit")
	neg := makeArrayReq(t, 3, ifrt.F32, ifrt.Shape{-4}, h.single(0))
	wantErr(t, "a negative dimension", s.call(neg), ifrt.ErrInvalidArgument, "negative")
	bad := makeArrayReq(t, 4, ifrt.F32, ifrt.Shape{4}, h.single(0))
	bad.GetMakeArrayFromHostBufferRequest().Sharding.SerializedSharding.Data = []byte{0xff, 0xff, 0xff}
	wantErr(t, "a malformed sharding", s.call(bad), ifrt.ErrInvalidArgument, "malformed")
	unknownDev := makeArrayReq(t, 5, ifrt.F32, ifrt.Shape{4}, ifrt.NewSingleDeviceSharding(&ifrt.Device{ID: 99}, ""))
	wantErr(t, "an unknown device", s.call(unknownDev), ifrt.ErrNotFound, "99")
	// A host buffer whose size does not match its array.
	if err := s.store(6, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "a short host buffer", s.call(makeArrayReq(t, 6, ifrt.F32, ifrt.Shape{4}, h.single(0))), ifrt.ErrInvalidArgument, "bytes")
	// A store whose size disagrees with its header.
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: 7, BufferSize: 10})
	st, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.HostBufferMetadataKey, string(meta)))
	if err != nil {
		t.Fatal(err)
	}
	st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: []byte{1, 2, 3}})
	if _, err := st.CloseAndRecv(); grpcstatus.Code(err) != codes.DataLoss {
		t.Errorf("a short store: %v, want DATA_LOSS", err)
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
}

func TestArrayOps(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	s := h.session(t)
	all := h.devs(0, 1, 2, 3, 4, 5, 6, 7)
	grid, _ := ifrt.NewTiledSharding(all, 2, 4)
	shape := ifrt.Shape{4, 8}
	full := iota32(32)

	// Sharded device_put: one host buffer per shard, as jaxlib does.
	specP, err := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: grid})
	if err != nil {
		t.Fatal(err)
	}
	domains, _ := grid.IndexDomains(shape)
	spec := &proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{ArraySpec: specP}
	for i, d := range domains {
		handle := uint64(100 + i)
		if err := s.store(handle, ifrt.ExtractDomain(full, 4, shape, d)); err != nil {
			t.Fatal(err)
		}
		dt, _ := wire.DTypeToProto(ifrt.F32)
		spec.HostBuffers = append(spec.HostBuffers, &proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{Dtype: dt, Shape: wire.ShapeToProto(d.Shape()), HostBufferHandle: handle})
		spec.AddressableShardIndices = append(spec.AddressableShardIndices, &proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{Indices: []int64{int64(i)}})
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
		Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{spec}, ArrayHandles: []uint64{100}}}}))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{100}}}}))

	// device_get: disassemble, then per shard FullyReplicatedShard + copy.
	var shardHandles []uint64
	for i := range 8 {
		shardHandles = append(shardHandles, uint64(200+i))
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DisassembleIntoSingleDeviceArraysRequest{DisassembleIntoSingleDeviceArraysRequest: &proxypb.DisassembleIntoSingleDeviceArraysRequest{
		ArrayHandle: 100, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT, ResultHandles: shardHandles,
		SingleDeviceShardSemantics: wire.ShardSemanticsToProto(wire.AddressableShards)}}}))
	for i, sh := range shardHandles {
		mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
			ArrayHandle: sh, ResultHandle: uint64(300 + i), CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}))
		got, err := s.fetch(uint64(300+i), uint64(400+i), []int64{8, 4})
		if want := ifrt.ExtractDomain(full, 4, shape, domains[i]); err != nil || !bytes.Equal(got, want) {
			t.Errorf("shard %d = %v, %v; want %v", i, f32s(got), err, f32s(want))
		}
	}

	// Assemble the shards back into a sharded array.
	gridP, _ := wire.ShardingToProto(grid)
	dt, _ := wire.DTypeToProto(ifrt.F32)
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_AssembleArrayFromSingleDeviceArraysRequest{AssembleArrayFromSingleDeviceArraysRequest: &proxypb.AssembleArrayFromSingleDeviceArraysRequest{
		Shape: wire.ShapeToProto(shape), Sharding: gridP, SingleDeviceArrayHandles: shardHandles,
		CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT, ResultHandle: 500, Dtype: dt}}}))

	// Reshard to replicated, then fetch through FullyReplicatedShard.
	repl, _ := ifrt.NewHloSharding(all, "", ifrt.Replicated())
	replSpec, _ := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: repl})
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &proxypb.ReshardArraysRequest{
		ArrayHandles: []uint64{500}, ArraySpecs: []*proxypb.ArraySpecProto{replSpec},
		CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{501}}}}))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_FullyReplicatedShardRequest{FullyReplicatedShardRequest: &proxypb.FullyReplicatedShardRequest{
		ArrayHandle: 501, ResultHandle: 502, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT}}}))
	if got, err := s.fetch(502, 503, nil); err != nil || !bytes.Equal(got, full) {
		t.Errorf("resharded = %v, %v", f32s(got), err)
	}

	// Copy a single-device array to another device, and donate it.
	s.makeArray(600, f32bytes(7, 8), ifrt.F32, ifrt.Shape{2}, h.single(0))
	kind := "device"
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: &proxypb.CopyArraysRequest{
		ArrayHandles: []uint64{600}, DeviceIds: []int32{5}, MemoryKind: &kind,
		CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_DONATE_INPUT, ResultHandles: []uint64{601}}}}))
	if got, err := s.fetch(601, 602, nil); err != nil || fmt.Sprint(f32s(got)) != "[7 8]" {
		t.Errorf("copied = %v, %v", f32s(got), err)
	}
	del := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_IsArrayDeletedRequest{IsArrayDeletedRequest: &proxypb.IsArrayDeletedRequest{ArrayHandle: 600}}})
	if !mustOK(t, del).GetIsArrayDeletedResponse().GetDeleted() {
		t.Error("a donated array is not deleted")
	}
	_, err = s.fetch(600, 603, nil)
	if !errors.Is(err, ifrt.ErrInvalidArgument) || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("fetch of a donated array: %v", err)
	}

	// Remap two single-device arrays into one sharded array.
	s.makeArray(700, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, h.single(0))
	s.makeArray(701, f32bytes(3, 4), ifrt.F32, ifrt.Shape{2}, h.single(1))
	rows, _ := ifrt.NewTiledSharding(h.devs(0, 1), 2)
	plan := ifrt.RemapPlan{
		InputSpecs:  []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: h.single(0)}, {DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: h.single(1)}},
		OutputSpecs: []ifrt.ArraySpec{{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: rows}},
		Mappings: []ifrt.RemapMapping{
			{InArray: 0, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}},
			{InArray: 1, OutArray: 0, From: []ifrt.Interval{{Start: 0, End: 1, Step: 1}}, To: []ifrt.Interval{{Start: 1, End: 2, Step: 1}}},
		},
	}
	planP, err := wire.RemapPlanToProto(plan)
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_RemapArraysRequest{RemapArraysRequest: &proxypb.RemapArraysRequest{
		Plan: planP, ArrayHandles: []uint64{700, 701}, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT, ResultHandles: []uint64{702}}}}))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_ReshardArraysRequest{ReshardArraysRequest: &proxypb.ReshardArraysRequest{
		ArrayHandles: []uint64{702}, ArraySpecs: []*proxypb.ArraySpecProto{mustSpec(t, ifrt.F32, ifrt.Shape{4}, h.single(3))},
		CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{703}}}}))
	if got, err := s.fetch(703, 704, nil); err != nil || fmt.Sprint(f32s(got)) != "[1 2 3 4]" {
		t.Errorf("remapped = %v, %v", f32s(got), err)
	}

	// Delete: a future, then use after delete fails.
	resp := mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{703}}}}))
	fh := resp.GetDeleteArrayResponse().GetDeletionFutureHandle()
	if fh < wire.ServerHandleMin {
		t.Errorf("deletion future handle %d is not a server handle", fh)
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: fh}}}))
	wantErr(t, "a future read twice", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckFutureRequest{CheckFutureRequest: &proxypb.CheckFutureRequest{FutureHandle: fh}}}), ifrt.ErrNotFound, "")
	if _, err := s.fetch(703, 705, nil); !errors.Is(err, ifrt.ErrArrayDeleted) && !strings.Contains(fmt.Sprint(err), "deleted") {
		t.Errorf("fetch after delete: %v", err)
	}

	// Error arrays carry their error.
	errSpec := mustSpec(t, ifrt.F32, ifrt.Shape{2}, h.single(0))
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeErrorArraysRequest{MakeErrorArraysRequest: &proxypb.MakeErrorArraysRequest{
		Error: &proxypb.StatusProto{Code: proxypb.Code_DATA_LOSS, Message: "slice lost"}, ArraySpecs: []*proxypb.ArraySpecProto{errSpec}, ArrayHandles: []uint64{800}}}}))
	wantErr(t, "an error array", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CheckValueReadyRequest{CheckValueReadyRequest: &proxypb.CheckValueReadyRequest{ValueHandles: []uint64{800}}}}), ifrt.ErrDataLoss, "slice lost")
	// Used as an input, it fails the operation with its own error: the backend
	// never sees it.
	wantErr(t, "a copy of an error array", s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: &proxypb.CopyArraysRequest{
		ArrayHandles: []uint64{800}, DeviceIds: []int32{int32(h.single(1).Devices()[0].ID)}, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{801}}}}), ifrt.ErrDataLoss, "slice lost")

	// Destruct everything; the backend then holds nothing more than before.
	var handles []uint64
	for _, hs := range [][]uint64{{100, 500, 501, 502, 600, 601, 700, 701, 702, 800}, shardHandles} {
		handles = append(handles, hs...)
	}
	for i := range 8 {
		handles = append(handles, uint64(300+i))
	}
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DestructArrayRequest{DestructArrayRequest: &proxypb.DestructArrayRequest{ArrayHandle: handles}}}))
	deadline := time.Now().Add(testTimeout)
	for {
		if a, _ := h.backend.Live(); a == 0 {
			break
		}
		if time.Now().After(deadline) {
			a, _ := h.backend.Live()
			t.Fatalf("%d arrays remain after destructing every handle", a)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func mustSpec(t testing.TB, dt ifrt.DType, shape ifrt.Shape, sh ifrt.Sharding) *proxypb.ArraySpecProto {
	t.Helper()
	p, err := wire.ArraySpecToProto(ifrt.ArraySpec{DType: dt, Shape: shape, Sharding: sh})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDeleteWaitsForEarlierUses(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	// The copy's array arrives late; a delete sent after the copy must not
	// overtake it.
	mk := s.send(makeArrayReq(t, 1, ifrt.F32, ifrt.Shape{2}, h.single(0)))
	cp := s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 1, HostBufferHandle: 2}}})
	del := s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{1}}}})
	if err := s.store(1, f32bytes(5, 6)); err != nil {
		t.Fatal(err)
	}
	mustOK(t, s.wait(mk))
	mustOK(t, s.wait(cp))
	mustOK(t, s.wait(del))
	if got, _, err := s.lookup(2); err != nil || fmt.Sprint(f32s(got)) != "[5 6]" {
		t.Errorf("copied before delete = %v, %v", f32s(got), err)
	}

	// A copy sent after a delete sees the array deleted, even though both
	// wait for the array's bytes.
	s.send(makeArrayReq(t, 3, ifrt.F32, ifrt.Shape{2}, h.single(0)))
	del = s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{3}}}})
	cp = s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 3, HostBufferHandle: 4}}})
	if err := s.store(3, f32bytes(7, 8)); err != nil {
		t.Fatal(err)
	}
	mustOK(t, s.wait(del))
	wantErr(t, "a copy after a delete", s.wait(cp), ifrt.ErrInvalidArgument, "deleted")

	// Likewise after an execution that donates the array.
	exe := compileText(t, s, addMul, 0)
	s.send(makeArrayReq(t, 5, ifrt.F32, ifrt.Shape{4}, h.single(0)))
	s.makeArray(6, f32bytes(1, 1, 1, 1), ifrt.F32, ifrt.Shape{4}, h.single(0))
	ex := s.send(executeReq(exe, []uint64{5, 6}, []uint64{7}, false, 0))
	cp = s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{ArrayHandle: 5, HostBufferHandle: 8}}})
	if err := s.store(5, f32bytes(1, 2, 3, 4)); err != nil {
		t.Fatal(err)
	}
	mustOK(t, s.wait(ex))
	wantErr(t, "a copy after a donating execution", s.wait(cp), ifrt.ErrInvalidArgument, "deleted")

	// A handle twice in one request does not make the request wait for itself.
	s.makeArray(9, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
	s.makeArray(10, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
	s.call(executeReq(exe, []uint64{9, 9}, []uint64{11}, false, 0)) // answered, whatever the backend says
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DeleteArrayRequest{DeleteArrayRequest: &proxypb.DeleteArrayRequest{ArrayHandle: []uint64{10, 10}}}}))
}

func TestSessionTeardownFreesEverything(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, func(c *proxyserver.Config) {
		c.PluginPrograms = map[string]proxyserver.PluginHandler{"echoRequest": proxyservertest.EchoPlugin}
	})
	for range 2 {
		s := h.session(t)
		s.makeArray(1, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
		s.makeArray(2, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
		exe := compileText(t, s, addMul, 0)
		execute(t, s, exe, []uint64{1, 2}, nil, false)
		compilePlugin(t, s, `{"echoRequest": {}}`)
		if err := s.store(50, []byte{1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		if a, e := h.backend.Live(); a < 2 || e < 1 {
			t.Fatalf("backend holds %d arrays and %d executables mid-session", a, e)
		}
		s.close()
		h.expectFreed(t)
	}
}

func TestConcurrentSessions(t *testing.T) {
	checkGoroutines(t)
	h := newHarness(t, nil)
	errs := make(chan error, 4)
	for w := range 4 {
		go func() {
			errs <- func() error {
				s := h.session(t)
				defer s.close()
				for i := range 20 {
					handle := uint64(1 + i)
					data := f32bytes(float32(w), float32(i))
					if err := s.store(handle, data); err != nil {
						return err
					}
					if err := status(s.call(makeArrayReq(t, handle, ifrt.F32, ifrt.Shape{2}, h.single(i%8)))); err != nil {
						return err
					}
					got, err := s.fetch(handle, handle+1000, nil)
					if err != nil {
						return err
					}
					if !bytes.Equal(got, data) {
						return fmt.Errorf("session %d, array %d: got %v, want %v", w, i, f32s(got), f32s(data))
					}
				}
				return nil
			}()
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	h.expectFreed(t)
}

// TestRegisterAndClose mounts the service on a grpc.Server the test owns:
// Close still ends the open sessions and frees what they held.
func TestRegisterAndClose(t *testing.T) {
	checkGoroutines(t)
	backend, _ := gocpu.New(gocpu.Config{})
	defer backend.Close()
	srv, err := proxyserver.New(proxyserver.Config{Backend: backend, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	srv.Register(gs)
	lis := bufconn.Listen(1 << 20)
	go gs.Serve(lis)
	defer gs.Stop()
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	h := &harness{t: t, srv: srv, backend: backend, conn: conn, client: proxypb.NewGrpcIfrtServiceClient(conn), logs: &syncBuffer{}}
	s := h.session(t)
	s.makeArray(1, f32bytes(1, 2), ifrt.F32, ifrt.Shape{2}, ifrt.NewSingleDeviceSharding(backend.Devices()[0], ""))
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.ended:
	case <-time.After(testTimeout):
		t.Fatal("Close did not end the session")
	}
	h.expectFreed(t)
}
