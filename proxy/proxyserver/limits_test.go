package proxyserver_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// Tests of issue 11's defects 1 and 5: no request makes the server allocate
// more than the bytes it received, and every limit answers RESOURCE_EXHAUSTED,
// names itself, and leaves the session working.

// heapInUse is the bytes of the Go heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

func alive(t *testing.T, s *sess) {
	t.Helper()
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}))
}

// TestCopyToHostBufferStridesCannotInflate: f32[4] read back with a 20 GiB byte
// stride asked the server for a 60 GiB buffer, which killed it.
func TestCopyToHostBufferStridesCannotInflate(t *testing.T) {
	h := newHarness(t, nil)
	s := h.session(t)
	s.makeArray(1, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{4}, h.single(0))
	before := heapInUse()
	_, err := s.fetch(1, 2, []int64{20 << 30})
	if !errors.Is(err, ifrt.ErrInvalidArgument) || !strings.Contains(err.Error(), "gaps") {
		t.Errorf("CopyToHostBuffer with a 20 GiB stride: %v, want INVALID_ARGUMENT about gaps", err)
	}
	if grown := heapInUse() - before; grown > 16<<20 {
		t.Errorf("the heap grew by %d bytes", grown)
	}
	// Strides that reorder without gaps still work (column-major f32[2,2]).
	s.makeArray(3, f32bytes(1, 2, 3, 4), ifrt.F32, ifrt.Shape{2, 2}, h.single(0))
	got, err := s.fetch(3, 4, []int64{4, 8})
	if err != nil || !slices.Equal(f32s(got), []float32{1, 3, 2, 4}) {
		t.Errorf("column-major read = %v, %v", f32s(got), err)
	}
	alive(t, s)
}

// TestShardsDeclaringAHugeArray: MakeArraysFromHostBufferShards declaring a 60 GiB
// array allocated it before any byte arrived.
func TestShardsDeclaringAHugeArray(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxSessionHostBufferBytes = 1 << 30 })
	s := h.session(t)
	spec, err := wire.ArraySpecToProto(ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{15 << 30}, Sharding: h.single(0)})
	if err != nil {
		t.Fatal(err)
	}
	dt, _ := wire.DTypeToProto(ifrt.F32)
	before := heapInUse()
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
		Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{{
			ArraySpec:               spec,
			AddressableShardIndices: []*proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{{Indices: []int64{0}}},
			HostBuffers:             []*proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{{Dtype: dt, Shape: wire.ShapeToProto(ifrt.Shape{15 << 30}), HostBufferHandle: 9}},
		}},
		ArrayHandles: []uint64{1},
	}}})
	wantErr(t, "a 60 GiB array", resp, ifrt.ErrResourceExhausted, "max_session_host_buffer_bytes")
	if grown := heapInUse() - before; grown > 16<<20 {
		t.Errorf("the heap grew by %d bytes", grown)
	}
	alive(t, s)
}

// TestUploadsCommitMemoryAsBytesArrive: 100 uploads that each announce 64 MiB and
// send 8 bytes made the server reserve 6.4 GiB. Now they cost what arrived, and
// past the session's host-buffer budget they are refused before any byte.
func TestUploadsCommitMemoryAsBytesArrive(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxSessionHostBufferBytes = 1 << 30 })
	s := h.session(t)
	before := heapInUse()
	ctx, cancel := context.WithCancel(ctxT(t))
	accepted, refused := 0, 0
	for i := range 100 {
		meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: uint64(100 + i), BufferSize: 64 << 20})
		st, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctx, proxyserver.HostBufferMetadataKey, string(meta)))
		if err != nil {
			t.Fatal(err)
		}
		st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: make([]byte, 8)})
		// A taken upload gets headers; a refused one ends without them.
		if md, _ := st.Header(); md != nil {
			accepted++
			continue
		}
		_, err = st.CloseAndRecv()
		if !errorsIsCode(err, codes.ResourceExhausted) || !strings.Contains(err.Error(), "max_session_host_buffer_bytes") {
			t.Fatalf("upload %d: %v, want RESOURCE_EXHAUSTED naming max_session_host_buffer_bytes", i, err)
		}
		refused++
	}
	if accepted != 16 || refused != 84 {
		t.Errorf("%d uploads of 64 MiB taken and %d refused with a budget of 1 GiB, want 16 and 84", accepted, refused)
	}
	if grown := heapInUse() - before; grown > 32<<20 {
		t.Errorf("16 open uploads of 8 bytes grew the heap by %d bytes", grown)
	}
	cancel() // the open uploads end; their reservations come back
	deadline := ctxT(t)
	for {
		if err := s.store(1, f32bytes(1, 2)); err == nil {
			break
		} else if deadline.Err() != nil {
			t.Fatalf("after the uploads ended, a store still fails: %v", err)
		}
	}
	mustOK(t, s.call(makeArrayReq(t, 1, ifrt.F32, ifrt.Shape{2}, h.single(0))))
}

// TestUploadsPastTheLimitWait: jaxlib sends each device_put's bytes on a call
// of its own, all at once, and ends the session when one fails; past
// max_inflight_uploads the server refused a call, so a loop of 10 000 small
// device_puts lost the session. Now a call past the limit waits for a slot, and
// one given up while it waits ends alone.
func TestUploadsPastTheLimitWait(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxInflightUploads = 2 })
	s := h.session(t)
	// open starts an upload of f32[2] and sends its first element.
	open := func(ctx context.Context, handle uint64) proxypb.GrpcIfrtService_HostBufferStoreClient {
		t.Helper()
		meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: handle, BufferSize: 8})
		st, err := h.client.HostBufferStore(metadata.AppendToOutgoingContext(ctx, proxyserver.HostBufferMetadataKey, string(meta)))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: f32bytes(1)}); err != nil {
			t.Fatal(err)
		}
		return st
	}
	finish := func(st proxypb.GrpcIfrtService_HostBufferStoreClient) error {
		if err := st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: f32bytes(2)}); err != nil {
			return err
		}
		_, err := st.CloseAndRecv()
		return err
	}
	first, second := open(ctxT(t), 1), open(ctxT(t), 2)
	for _, st := range []proxypb.GrpcIfrtService_HostBufferStoreClient{first, second} {
		if md, _ := st.Header(); md == nil {
			t.Fatal("an upload within the limit was not taken")
		}
	}
	// waits returns once the server says that upload handle waits for a slot.
	waits := func(handle uint64) {
		t.Helper()
		want := fmt.Sprintf(`msg="ifrt proxy upload waits for a slot" session=%d handle=%d`, s.id, handle)
		for ctx := ctxT(t); !strings.Contains(h.logs.String(), want); {
			if ctx.Err() != nil {
				t.Fatalf("upload %d past the limit never waited for a slot:\n%s", handle, h.logs.String())
			}
			runtime.Gosched()
		}
	}
	giveUpCtx, giveUp := context.WithCancel(ctxT(t))
	givenUp := open(giveUpCtx, 3)
	waits(3)
	giveUp()
	if _, err := givenUp.CloseAndRecv(); !errorsIsCode(err, codes.Canceled) {
		t.Errorf("an upload given up while it waited: %v, want CANCELED", err)
	}
	waiting := open(ctxT(t), 4)
	waits(4)
	waited := make(chan error, 1)
	go func() { waited <- finish(waiting) }()
	if err := finish(first); err != nil {
		t.Fatalf("the first upload: %v", err)
	}
	if err := <-waited; err != nil {
		t.Fatalf("the upload past the limit: %v, want it to wait for a slot and succeed", err)
	}
	if err := finish(second); err != nil {
		t.Fatalf("the second upload: %v", err)
	}
	mustOK(t, s.call(makeArrayReq(t, 4, ifrt.F32, ifrt.Shape{2}, h.single(0))))
	alive(t, s)
}

// TestUnusedHostBuffersAreBounded: 1,500 unused 1 MiB host buffers were held
// (2 GiB); the session's budget stops them, and deleting some makes room.
func TestUnusedHostBuffersAreBounded(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxSessionHostBufferBytes = 8 << 20 })
	s := h.session(t)
	mb := make([]byte, 1<<20)
	for i := range 8 {
		if err := s.store(uint64(i+1), mb); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	err := s.store(9, mb)
	if !errorsIsCode(err, codes.ResourceExhausted) || !strings.Contains(err.Error(), "max_session_host_buffer_bytes") {
		t.Fatalf("the 9th MiB: %v, want RESOURCE_EXHAUSTED naming the limit", err)
	}
	if _, err := h.client.HostBufferDelete(ctxT(t), &proxypb.GrpcHostBufferDeleteRequest{SessionId: s.id, Handle: 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.store(9, mb); err != nil {
		t.Errorf("after a delete: %v", err)
	}
	// The server-wide budget bounds the sessions together.
	h2 := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxHostBufferBytes = 2 << 20 })
	a, b := h2.session(t), h2.session(t)
	if err := a.store(1, mb); err != nil {
		t.Fatal(err)
	}
	if err := b.store(1, mb); err != nil {
		t.Fatal(err)
	}
	if err := b.store(2, mb); !errorsIsCode(err, codes.ResourceExhausted) || !strings.Contains(err.Error(), "max_host_buffer_bytes") {
		t.Errorf("past the server's budget: %v, want RESOURCE_EXHAUSTED naming max_host_buffer_bytes", err)
	}
	alive(t, a)
}

// TestSessionLimit: 20,000 sessions could be opened.
func TestSessionLimit(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxSessions = 3 })
	var ss []*sess
	for range 3 {
		ss = append(ss, h.session(t))
	}
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	st, err := h.client.IfrtSession(metadata.AppendToOutgoingContext(ctxT(t), proxyserver.SessionMetadataKey, string(meta)))
	if err == nil {
		_, err = st.Recv()
	}
	if !errorsIsCode(err, codes.ResourceExhausted) || !strings.Contains(err.Error(), "max_sessions") {
		t.Errorf("a 4th session: %v, want RESOURCE_EXHAUSTED naming max_sessions", err)
	}
	ss[0].close()
	deadline := ctxT(t)
	for h.srv.Sessions() == 3 && deadline.Err() == nil {
		runtime.Gosched()
	}
	alive(t, h.session(t))
}

// TestLiveBytesLimit bounds the arrays a session holds.
func TestLiveBytesLimit(t *testing.T) {
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxSessionLiveBytes = 64 })
	s := h.session(t)
	s.makeArray(1, iota32(8), ifrt.F32, ifrt.Shape{8}, h.single(0))
	s.makeArray(2, iota32(8), ifrt.F32, ifrt.Shape{8}, h.single(0))
	if err := s.store(3, iota32(1)); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "a third array", s.call(makeArrayReq(t, 3, ifrt.F32, ifrt.Shape{1}, h.single(0))), ifrt.ErrResourceExhausted, "max_session_live_bytes")
	copyReq := &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyArraysRequest{CopyArraysRequest: &proxypb.CopyArraysRequest{
		ArrayHandles: []uint64{1}, DeviceIds: []int32{1}, CopySemantics: proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY, ResultHandles: []uint64{4}}}}
	wantErr(t, "a copy", s.call(copyReq), ifrt.ErrResourceExhausted, "max_session_live_bytes")
	mustOK(t, s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_DestructArrayRequest{DestructArrayRequest: &proxypb.DestructArrayRequest{ArrayHandle: []uint64{2}}}}))
	deadline := ctxT(t)
	for {
		if err := s.store(5, iota32(1)); err != nil {
			t.Fatal(err)
		}
		resp := s.call(makeArrayReq(t, 5, ifrt.F32, ifrt.Shape{1}, h.single(0)))
		if status(resp) == nil {
			break
		}
		if deadline.Err() != nil {
			t.Fatalf("after a destruct, making an array still fails: %v", status(resp))
		}
	}
}

// TestRequestsInFlightAreBounded: a client that sends requests that cannot
// finish (their host buffers have not come) has at most MaxInflightRequests of
// them in the server; the server reads the rest only as those finish, so a
// client cannot make it hold unbounded work.
func TestRequestsInFlightAreBounded(t *testing.T) {
	const limit, n = 8, 200
	h := newHarness(t, func(c *proxyserver.Config) { c.Limits.MaxInflightRequests = limit })
	s := h.session(t)
	for i := range n {
		s.send(makeArrayReq(t, uint64(100+i), ifrt.F32, ifrt.Shape{2}, h.single(0)))
	}
	initOp := s.send(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}})
	answeredAfter := -1 // stores before the Init after them was answered
	for i := range n {
		if answeredAfter < 0 && s.answered(initOp) {
			answeredAfter = i
		}
		if err := s.store(uint64(100+i), f32bytes(1, 2)); err != nil {
			t.Fatalf("store %d: %v", i, err)
		}
	}
	mustOK(t, s.wait(initOp))
	// The Init is read once fewer than limit requests are in progress (and up
	// to two more wait in the session's reader): after n-limit-2 stores.
	if answeredAfter >= 0 && answeredAfter < n-limit-2 {
		t.Errorf("the Init after %d blocked requests was answered after %d of their buffers came: more than %d were in progress", n, answeredAfter, limit)
	}
}

func errorsIsCode(err error, c codes.Code) bool { return grpcstatus.Code(err) == c }
