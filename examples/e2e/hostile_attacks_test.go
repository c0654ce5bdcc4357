package e2e

import (
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/faultnet"
	"github.com/openpathways/pathways/internal/xlapb"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
	"github.com/openpathways/pathways/worker/workerpb"
)

// The attacks of the hostile suite, each against the cluster of hostile_test.go.

func codeOf(c proxypb.Code) codes.Code { return codes.Code(c) }

func metadataCtx(ctx context.Context, kv ...string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, kv...)
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

func single(dev int32) *proxypb.ShardingProto {
	b, _ := proto.Marshal(&proxypb.SingleDeviceShardingProto{DeviceId: dev})
	return &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: "xla::ifrt::SingleDeviceSharding", Data: b}}
}

var f32 = &proxypb.DTypeProto{Kind: proxypb.DTypeProto_KIND_F32}

// makeArray makes f32[dims] on dev from host buffer buf under handle h.
func makeArray(buf, h uint64, dev int32, dims ...int64) *proxypb.IfrtRequest {
	return &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArrayFromHostBufferRequest{MakeArrayFromHostBufferRequest: &proxypb.MakeArrayFromHostBufferRequest{
		Dtype: f32, Shape: &proxypb.ShapeProto{Dims: dims}, Sharding: single(dev), HostBufferHandle: buf, ArrayHandle: &h}}}
}

func copyToHost(array, buf uint64, strides []int64) *proxypb.IfrtRequest {
	r := &proxypb.CopyToHostBufferRequest{ArrayHandle: array, HostBufferHandle: buf}
	if strides != nil {
		r.ByteStrides = &proxypb.ByteStrides{Strides: strides}
	}
	return &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: r}}
}

func initReq() *proxypb.IfrtRequest {
	return &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}}
}

// sessionGoesOn checks that s still answers.
func sessionGoesOn(t *testing.T, s *rawSession) {
	t.Helper()
	if _, st := s.callStatus(initReq()); st.Code() != codes.OK {
		t.Fatalf("the session did not go on: %v", st.Err())
	}
}

// 1. One request OOM-killed the proxy: CopyToHostBuffer of f32[4] with a 20 GiB
// stride; also negative and overlapping strides.
func attackStrides(t *testing.T, h *hostileCluster) {
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	if err := s.store(h.ctx, s.client, 1, f32s(1, 2, 3, 4), 16); err != nil {
		t.Fatal(err)
	}
	if _, st := s.callStatus(makeArray(1, 1, 0, 4)); st.Code() != codes.OK {
		t.Fatal(st.Err())
	}
	_, st := s.callStatus(copyToHost(1, 2, []int64{20 << 30}))
	want(t, "CopyToHostBuffer with a 20 GiB byte stride", st, codes.InvalidArgument, "gaps")
	neg := makeArray(3, 3, 0, 4)
	neg.GetMakeArrayFromHostBufferRequest().ByteStrides = &proxypb.ByteStrides{Strides: []int64{-4}}
	_, st = s.callStatus(neg)
	want(t, "negative byte strides", st, codes.InvalidArgument, "not positive")
	overlap := makeArray(4, 4, 0, 1<<20, 1<<20)
	overlap.GetMakeArrayFromHostBufferRequest().ByteStrides = &proxypb.ByteStrides{Strides: []int64{4, 4}}
	_, st = s.callStatus(overlap)
	want(t, "a 4 TiB array from an 8 MiB buffer of overlapping strides", st, codes.InvalidArgument, "overlap")
	sessionGoesOn(t, s)
}

// 1. A MakeArraysFromHostBufferShards declaring a 60 GiB array allocated it
// before any byte arrived; so could a 60 GiB upload or a huge shape.
func attackHugeShards(t *testing.T, h *hostileCluster) {
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	dims := []int64{15 << 30}
	_, st := s.callStatus(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArraysFromHostBufferShardsRequest{MakeArraysFromHostBufferShardsRequest: &proxypb.MakeArraysFromHostBufferShardsRequest{
		Specs: []*proxypb.MakeArraysFromHostBufferShardsRequest_MakeArraysFromHostBufferShardsSpec{{
			ArraySpec:               &proxypb.ArraySpecProto{Dtype: f32, Shape: &proxypb.ShapeProto{Dims: dims}, Sharding: single(0)},
			AddressableShardIndices: []*proxypb.MakeArraysFromHostBufferShardsRequest_ShardIndices{{Indices: []int64{0}}},
			HostBuffers:             []*proxypb.MakeArraysFromHostBufferShardsRequest_HostBuffer{{Dtype: f32, Shape: &proxypb.ShapeProto{Dims: dims}, HostBufferHandle: 9}},
		}},
		ArrayHandles: []uint64{9},
	}}})
	want(t, "MakeArraysFromHostBufferShards of 60 GiB", st, codes.ResourceExhausted, "max_session_host_buffer_bytes")
	err := s.store(h.ctx, s.client, 10, f32s(1), 60<<30)
	want(t, "a 60 GiB HostBufferStore", status.Convert(err), codes.ResourceExhausted, "max_session_host_buffer_bytes")
	_, st = s.callStatus(makeArray(11, 11, 0, 1<<40))
	want(t, "an array of 4 TiB", st, codes.ResourceExhausted, "limit")
	_, st = s.callStatus(makeArray(12, 12, 0, 1<<40, 1<<30))
	want(t, "an array of 2^70 elements", st, codes.InvalidArgument, "")
	sessionGoesOn(t, s)
}

// 5. 100 uploads that each announce 64 MiB and send 8 bytes (8.3 GiB virtual).
func attackUploads(t *testing.T, h *hostileCluster) {
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	taken, refused := 0, 0
	for i := range 100 {
		meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: uint64(100 + i), BufferSize: 64 << 20})
		st, err := s.client.HostBufferStore(metadataCtx(ctx, hostBufferMetadataKey, string(meta)))
		if err != nil {
			t.Fatal(err)
		}
		st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: make([]byte, 8)})
		if md, _ := st.Header(); md != nil {
			taken++
			continue
		}
		_, err = st.CloseAndRecv()
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("upload %d: %v, want RESOURCE_EXHAUSTED", i, err)
		}
		refused++
	}
	t.Logf("100 uploads of 64 MiB announced, 8 bytes sent: %d taken, %d refused with RESOURCE_EXHAUSTED", taken, refused)
	if taken != 1 {
		t.Errorf("%d uploads of 64 MiB taken with a 64 MiB budget", taken)
	}
	cancel()
	sessionGoesOn(t, s)
}

// 5. 1,500 unused 1 MiB host buffers (2 GiB): the session's budget stops them,
// and the server's bounds the sessions together.
func attackUnusedBuffers(t *testing.T, h *hostileCluster) {
	conn := dialRaw(t, h.proxyAddr, "")
	mb := make([]byte, 1<<20)
	var sessions []*rawSession
	total, serverRefused := 0, false
	for k := range 5 {
		s := mustSession(t, h.ctx, conn)
		sessions = append(sessions, s)
		for i := range 1500 {
			err := s.store(h.ctx, s.client, uint64(i+1), mb, 1<<20)
			if err == nil {
				total++
				continue
			}
			st := status.Convert(err)
			if st.Code() != codes.ResourceExhausted || !strings.Contains(st.Message(), "max_session_host_buffer_bytes") && !strings.Contains(st.Message(), "max_host_buffer_bytes") {
				t.Fatalf("session %d, buffer %d: %v, want RESOURCE_EXHAUSTED naming a host-buffer limit", k, i, st.Err())
			}
			serverRefused = serverRefused || strings.Contains(st.Message(), "max_host_buffer_bytes")
			if i > 64 {
				t.Errorf("a session stored %d MiB with a 64 MiB budget", i)
			}
			break
		}
	}
	t.Logf("5 sessions stored %d unused MiB before RESOURCE_EXHAUSTED", total)
	if total > 256 || !serverRefused {
		t.Errorf("%d MiB stored by 5 sessions (refused by the server's limit: %v), want at most 256 and a refusal naming max_host_buffer_bytes", total, serverRefused)
	}
	for _, s := range sessions {
		s.close()
	}
	eventually(t, h.ctx, "the ended sessions' buffers are freed", func() error {
		s, err := openSession(t, h.ctx, conn)
		if err != nil {
			return err
		}
		defer s.close()
		return s.store(h.ctx, s.client, 1, make([]byte, 32<<20), 32<<20)
	})
}

// 5. 20,000 sessions opened in 12 s.
func attackSessions(t *testing.T, h *hostileCluster) {
	conn := dialRaw(t, h.proxyAddr, "")
	var open []*rawSession
	for range 20000 {
		s, err := openSession(t, h.ctx, conn)
		if err != nil {
			want(t, "a session past the limit", status.Convert(err), codes.ResourceExhausted, "max_sessions")
			break
		}
		open = append(open, s)
	}
	if len(open) > 8 {
		t.Errorf("%d sessions open with max_sessions=8", len(open))
	}
	for _, s := range open {
		s.close()
	}
	eventually(t, h.ctx, "a session once the others closed", func() error {
		s, err := openSession(t, h.ctx, conn)
		if err == nil {
			s.close()
		}
		return err
	})
}

// 4. Session B read session A's upload and device_get result, deleted A's
// buffer, and stored A's next handle. B here comes from another address
// (127.0.0.2) and knows A's id.
func attackOtherSessions(t *testing.T, h *hostileCluster) {
	a := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	spy := proxypb.NewGrpcIfrtServiceClient(dialRaw(t, h.proxyAddr, "127.0.0.2"))
	b := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, "127.0.0.2"))
	if b.id == a.id+1 {
		t.Errorf("session ids %d and %d are sequential", a.id, b.id)
	}
	secret := f32s(1, 2, 3, 4)
	if err := a.store(h.ctx, a.client, 5, secret, 16); err != nil {
		t.Fatal(err)
	}
	_, err := lookup(h.ctx, spy, a.id, 5)
	want(t, "B reads A's upload", status.Convert(err), codes.NotFound, "")
	_, err = spy.HostBufferDelete(h.ctx, &proxypb.GrpcHostBufferDeleteRequest{SessionId: a.id, Handle: 5})
	want(t, "B deletes A's buffer", status.Convert(err), codes.NotFound, "")
	err = a.store(h.ctx, spy, 6, f32s(6, 6, 6, 6), 16)
	want(t, "B stores A's next handle", status.Convert(err), codes.NotFound, "")
	err = a.store(h.ctx, spy, 6, f32s(6, 6, 6, 6), 16, sessionTokenKey, "guessed")
	want(t, "B stores with a guessed session token", status.Convert(err), codes.NotFound, "")
	if _, st := a.callStatus(makeArray(5, 5, 0, 4)); st.Code() != codes.OK {
		t.Fatal(st.Err())
	}
	if _, st := a.callStatus(copyToHost(5, 7, nil)); st.Code() != codes.OK {
		t.Fatal(st.Err())
	}
	_, err = lookup(h.ctx, spy, a.id, 7)
	want(t, "B reads A's device_get result", status.Convert(err), codes.NotFound, "")
	if back, err := lookup(h.ctx, a.client, a.id, 7); err != nil || string(back) != string(secret) {
		t.Errorf("A's own read = %v, %v", back, err)
	}
	// What B names in its own session is its own.
	_, st := b.callStatus(copyToHost(5, 8, nil))
	want(t, "B reads A's array handle in B's session", st, codes.NotFound, "")
}

// 3. One malformed compile cut the proxy off from every worker for good: the
// plugin's error for bad bytecode was not UTF-8. Each bad program must fail
// alone, with a valid message, on either slice; alive then checks both slices.
func attackBadPrograms(t *testing.T, h *hostileCluster) {
	s := mustSession(t, h.ctx, dialRaw(t, h.proxyAddr, ""))
	for _, dev := range []int64{0, 4} {
		for _, prog := range [][]byte{
			[]byte("ML\xefR\x00\xff\xfe\xfd garbage"),
			{0xff, 0xfe, 0xc3, 0x28},
			[]byte("module @\"\xff\xfe\" {}"),
			[]byte("module @m {\n func.func @main(%a: tensor<4x\xff\xfef32>) {\n}}"),
		} {
			_, st := s.callStatus(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
				Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: prog}, CompileOptions: compileOptions(t, dev)}}})
			if st.Code() == codes.OK || !utf8.ValidString(st.Message()) {
				t.Errorf("a bad program on device %d: %v %q, want an error with a valid UTF-8 message", dev, st.Code(), st.Message())
			}
			if st.Code() == codes.DataLoss || st.Code() == codes.Unavailable {
				t.Errorf("a bad program on device %d cost the worker: %v", dev, st.Err())
			}
		}
		t.Logf("bad programs on device %d: refused, the session goes on", dev)
		sessionGoesOn(t, s)
	}
}

func compileOptions(t *testing.T, dev int64) *proxypb.Serialized {
	da := &xlapb.DeviceAssignmentProto{ReplicaCount: 1, ComputationCount: 1,
		ComputationDevices: []*xlapb.DeviceAssignmentProto_ComputationDevice{{ReplicaDeviceIds: []int64{dev}}}}
	b, err := proto.Marshal(&proxypb.XlaCompileOptionsProto{CompileOptions: &xlapb.CompileOptionsProto{
		ExecutableBuildOptions: &xlapb.ExecutableBuildOptionsProto{NumReplicas: 1, NumPartitions: 1, DeviceAssignment: da}}})
	if err != nil {
		t.Fatal(err)
	}
	return &proxypb.Serialized{TypeName: "xla::ifrt::XlaCompileOptions", Data: b}
}

// 8. Garbage got INTERNAL; a version range of [INT_MIN, INT_MAX] negotiated
// SerDes 2147483647; a message over the limit.
func attackGarbage(t *testing.T, h *hostileCluster) {
	conn := dialRaw(t, h.proxyAddr, "")
	garbage := []byte{0x0f, 0xff, 0xff}
	err := conn.Invoke(h.ctx, proxypb.GrpcIfrtService_GetVersion_FullMethodName, &garbage, new([]byte), grpc.ForceCodecV2(rawCodec{}))
	want(t, "GetVersion of garbage", status.Convert(err), codes.InvalidArgument, "not a valid")
	st, err := conn.NewStream(sessionMetadata(h.ctx), &proxypb.GrpcIfrtService_ServiceDesc.Streams[0], proxypb.GrpcIfrtService_IfrtSession_FullMethodName, grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		t.Fatal(err)
	}
	st.SendMsg(&garbage)
	want(t, "a session sent garbage", status.Convert(st.RecvMsg(new([]byte))), codes.InvalidArgument, "not a valid")
	client := proxypb.NewGrpcIfrtServiceClient(conn)
	bare, err := client.IfrtSession(h.ctx)
	if err == nil {
		_, err = bare.Recv()
	}
	want(t, "a session without its metadata", status.Convert(err), codes.InvalidArgument, "metadata")
	hb, err := client.HostBufferStore(h.ctx)
	if err == nil {
		_, err = hb.CloseAndRecv()
	}
	want(t, "a HostBufferStore without its header", status.Convert(err), codes.InvalidArgument, "header")
	v, err := client.GetVersion(h.ctx, &proxypb.GrpcGetVersionRequest{
		MinVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: math.MinInt32, IfrtSerdesVersionNumber: math.MinInt32},
		MaxVersion: &proxypb.IfrtProxyVersion{ProtocolVersion: math.MaxInt32, IfrtSerdesVersionNumber: math.MaxInt32}})
	if err != nil || v.GetVersion().GetIfrtSerdesVersionNumber() != 3 {
		t.Errorf("GetVersion([INT_MIN, INT_MAX]) = %v, %v; want SerDes 3", v, err)
	}
	s := mustSession(t, h.ctx, conn)
	_, sst := s.callStatus(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CompileRequest{CompileRequest: &proxypb.CompileRequest{
		Program: &proxypb.Serialized{TypeName: "xla::ifrt::XlaProgram", Data: make([]byte, 20<<20)}}}})
	// grpc-go ends the stream that carried the message; the server goes on.
	want(t, "a 20 MiB message over --max_message_bytes=16MiB", sst, codes.ResourceExhausted, "larger than max")
}

// A client that sends requests and never reads the answers holds a bounded
// number of them in the server.
func attackUnreadResponses(t *testing.T, h *hostileCluster) {
	conn := dialRaw(t, h.proxyAddr, "")
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	stream, err := proxypb.NewGrpcIfrtServiceClient(conn).IfrtSession(sessionMetadata(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50000 {
			// Each waits for a host buffer that never comes.
			req := makeArray(uint64(i+1), uint64(i+1), 0, 4)
			req.RequestMetadata = &proxypb.RequestMetadata{OpId: uint64(i + 1)}
			if stream.Send(req) != nil {
				return
			}
			sent.Add(1)
		}
	}()
	for sent.Load() < 4200 {
		select {
		case <-done:
			t.Fatalf("the sender stopped after %d requests", sent.Load())
		case <-time.After(time.Millisecond):
		}
	}
	h.alive(t) // while the unread requests are held
	cancel()
	<-done
	t.Logf("%d requests sent, none of their answers read", sent.Load())
}

// 6. A client that vanished behind a dead TCP path kept its session for good.
// Sessions through a path that then dies are freed (keepalive 1s+3s), which
// makes room under max_sessions again.
func attackVanishedClient(t *testing.T, h *hostileCluster) {
	path, err := faultnet.Listen(h.proxyAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer path.Close()
	conn := dialRaw(t, path.Addr(), "")
	n := 0
	for {
		s, err := openSession(t, h.ctx, conn)
		if err != nil {
			want(t, "sessions through the path until the limit", status.Convert(err), codes.ResourceExhausted, "max_sessions")
			break
		}
		if err := s.store(h.ctx, s.client, 1, make([]byte, 8<<20), 8<<20); err != nil {
			t.Fatal(err)
		}
		n++
	}
	path.Freeze()
	direct := dialRaw(t, h.proxyAddr, "")
	eventually(t, h.ctx, "a session once the vanished ones are freed", func() error {
		s, err := openSession(t, h.ctx, direct)
		if err == nil {
			s.close()
		}
		return err
	})
	t.Logf("%d sessions behind a dead path were freed", n)
}

// 4. No server had a token: any process could call a worker.
func attackWorkerWithoutToken(t *testing.T, h *hostileCluster) {
	for i, addr := range h.wAddrs {
		conn := dialRaw(t, addr, "")
		_, err := proxypb.NewGrpcIfrtServiceClient(conn).GetVersion(h.ctx, &proxypb.GrpcGetVersionRequest{})
		want(t, "the worker's IFRT Proxy service without the token", status.Convert(err), codes.Unauthenticated, "cluster token")
		_, err = openSession(t, h.ctx, conn)
		want(t, "a session on the worker without the token", status.Convert(err), codes.Unauthenticated, "")
		peer := workerpb.NewPeerClient(conn)
		_, err = peer.Gather(h.ctx, &workerpb.GatherRequest{})
		want(t, "Gather without the token", status.Convert(err), codes.Unauthenticated, "")
		rs, err := peer.ReadArray(h.ctx, &workerpb.ReadArrayRequest{Array: &workerpb.ArrayRef{SessionId: 1, Handle: 1}})
		if err == nil {
			_, err = rs.Recv()
		}
		want(t, "ReadArray without the token", status.Convert(err), codes.Unauthenticated, "")
		if _, err := grpc_health_v1.NewHealthClient(conn).Check(h.ctx, &grpc_health_v1.HealthCheckRequest{}); err != nil {
			t.Errorf("worker %d's health without the token: %v", i, err)
		}
	}
}

// 2. One Gather with a piece of domain [2^40] killed a worker, and a piece could
// make it dial any address. Here the caller even has the cluster token (an
// insider) and a session of its own on the worker.
func attackPeer(t *testing.T, h *hostileCluster) {
	conn := dialRaw(t, h.wAddrs[0], "", tokenAuth(h.token))
	s := mustSession(t, h.ctx, conn)
	if err := s.store(h.ctx, s.client, 1, f32s(1, 2, 3, 4), 16); err != nil {
		t.Fatal(err)
	}
	if _, st := s.callStatus(makeArray(1, 1, 0, 4)); st.Code() != codes.OK {
		t.Fatal(st.Err())
	}
	peer := workerpb.NewPeerClient(conn)
	dom := func(o, n int64) *workerpb.Domain { return &workerpb.Domain{Origin: []int64{o}, Shape: []int64{n}} }
	own := &workerpb.ArrayRef{SessionId: s.id, Handle: 1, SessionToken: s.token}
	gather := func(pieces ...*workerpb.Piece) error {
		_, err := peer.Gather(h.ctx, &workerpb.GatherRequest{Result: &workerpb.ArrayRef{SessionId: s.id, Handle: 50, SessionToken: s.token},
			Dtype: int32(ifrt.F32), Domain: dom(0, 4), Pieces: pieces})
		return err
	}
	err := gather(&workerpb.Piece{Array: own, Domain: dom(0, 1<<40)})
	want(t, "a local piece of domain [2^40]", status.Convert(err), codes.InvalidArgument, "says it holds")
	err = gather(&workerpb.Piece{WorkerAddress: "localhost:1", Array: own, Domain: dom(0, 1<<40)})
	want(t, "a piece on localhost:1", status.Convert(err), codes.PermissionDenied, "not a live worker")
	err = gather(&workerpb.Piece{WorkerAddress: h.wAddrs[1], Array: &workerpb.ArrayRef{SessionId: 12345, Handle: 1, SessionToken: "guess"}, Domain: dom(0, 1<<40)})
	want(t, "a piece of another worker's session, guessed", status.Convert(err), codes.NotFound, "")
	_, err = peer.Gather(h.ctx, &workerpb.GatherRequest{Result: &workerpb.ArrayRef{SessionId: s.id, Handle: 51, SessionToken: s.token},
		Dtype: int32(ifrt.F32), Domain: dom(0, 1<<40), Pieces: []*workerpb.Piece{{Array: own, Domain: dom(0, 1<<40)}}})
	want(t, "a 4 TiB gather", status.Convert(err), codes.ResourceExhausted, "limit")
	rs, err := peer.ReadArray(h.ctx, &workerpb.ReadArrayRequest{Array: &workerpb.ArrayRef{SessionId: s.id, Handle: 1}})
	if err == nil {
		_, err = rs.Recv()
	}
	want(t, "ReadArray of a session without its token", status.Convert(err), codes.NotFound, "")
	garbage := []byte{0x0f, 0xff}
	err = conn.Invoke(h.ctx, workerpb.Peer_Gather_FullMethodName, &garbage, new([]byte), grpc.ForceCodecV2(rawCodec{}))
	want(t, "Gather of garbage", status.Convert(err), codes.InvalidArgument, "not a valid")
	sessionGoesOn(t, s)
}

// 4. RegisterWorker took no credential: a rogue registered as slice 1. Also
// the RM's other calls, a flood of watchers and garbage.
func attackRM(t *testing.T, h *hostileCluster) {
	reg := &rmpb.RegisterWorkerRequest{SliceIndex: 1, HostIndex: 0, Address: "127.0.0.9:1", Incarnation: "rogue", Platform: "cpu"}
	for i := range 4 {
		reg.Devices = append(reg.Devices, &rmpb.LocalDevice{Kind: "cpu", LocalHardwareId: int32(i), MemoryKinds: []string{"device"}, DefaultMemoryKind: "device"})
	}
	anon := rmpb.NewResourceManagerClient(dialRaw(t, h.rmAddr, ""))
	_, err := anon.RegisterWorker(h.ctx, reg)
	want(t, "RegisterWorker without the token", status.Convert(err), codes.Unauthenticated, "cluster token")
	w, err := anon.Watch(h.ctx, &rmpb.WatchRequest{})
	if err == nil {
		_, err = w.Recv()
	}
	want(t, "Watch without the token", status.Convert(err), codes.Unauthenticated, "")
	conn := dialRaw(t, h.rmAddr, "", tokenAuth(h.token))
	member := rmpb.NewResourceManagerClient(conn)
	_, err = member.RegisterWorker(h.ctx, reg)
	want(t, "an insider registering as the live slice 1", status.Convert(err), codes.AlreadyExists, "held by the live worker")
	hb, err := member.Heartbeat(h.ctx)
	if err == nil {
		hb.Send(&rmpb.HeartbeatRequest{LeaseId: 42})
		_, err = hb.Recv()
	}
	want(t, "a heartbeat of a lease never given", status.Convert(err), codes.NotFound, "")
	garbage := []byte{0x0f, 0xff}
	err = conn.Invoke(h.ctx, rmpb.ResourceManager_RegisterWorker_FullMethodName, &garbage, new([]byte), grpc.ForceCodecV2(rawCodec{}))
	want(t, "RegisterWorker of garbage", status.Convert(err), codes.InvalidArgument, "not a valid")
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	watchers := 0
	for range 1000 {
		w, err := member.Watch(ctx, &rmpb.WatchRequest{})
		if err == nil {
			_, err = w.Recv()
		}
		if err != nil {
			want(t, "a watcher past --max_watchers=16", status.Convert(err), codes.ResourceExhausted, "max_watchers")
			break
		}
		watchers++
	}
	if watchers >= 16 {
		t.Errorf("%d watchers open with max_watchers=16", watchers)
	}
	cancel()
	view, err := member.GetCluster(h.ctx, &rmpb.GetClusterRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range view.GetCluster().GetWorkers() {
		if w.GetAddress() == reg.Address {
			t.Errorf("the rogue is in the cluster: %v", w)
		}
	}
}

// 6. With the RM down, a frozen (SIGSTOPped) worker blocked its clients for
// good. The cluster client's own check loses it within seconds.
func frozenWorker(t *testing.T, h *hostileCluster) {
	c, err := cluster.Connect(h.ctx, h.rmAddr, cluster.WithSecurity(rm.Security{Token: h.token}),
		cluster.WithKeepalive(200*time.Millisecond, time.Second), cluster.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	put := func(dev int) error {
		_, err := c.MakeArrayFromHostBuffer(h.ctx, f32s(1, 2), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[dev], "")}, nil)
		return err
	}
	if err := put(4); err != nil {
		t.Fatal(err)
	}
	frozen := h.workers[1]
	if err := frozen.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { frozen.cmd.Process.Signal(syscall.SIGCONT) })
	h.rm.kill9(t)
	err = put(4)
	if !strings.Contains(err.Error(), "DATA_LOSS") && ifrt.CodeOf(err) != ifrt.DataLoss {
		t.Errorf("a transfer to the frozen worker with the RM down: %v, want DATA_LOSS", err)
	} else {
		t.Logf("a transfer to the frozen worker: %v", firstLine(err.Error()))
	}
	if err := put(0); err != nil {
		t.Errorf("a transfer to the other worker: %v", err)
	}
}

// eventually retries f until it returns nil or ctx ends.
func eventually(t *testing.T, ctx context.Context, what string, f func() error) {
	t.Helper()
	for {
		err := f()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
