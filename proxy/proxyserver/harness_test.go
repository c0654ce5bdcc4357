package proxyserver_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/internal/wire"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// testTimeout bounds every blocking step of a test.
const testTimeout = 20 * time.Second

// harness is a server over gocpu behind bufconn, and a raw client.
type harness struct {
	t       testing.TB
	srv     *proxyserver.Server
	backend *gocpu.Client
	conn    *grpc.ClientConn
	client  proxypb.GrpcIfrtServiceClient
	logs    *syncBuffer
	addr    string // the loopback TCP address, with newTCPHarness
}

func newHarness(t testing.TB, mod func(*proxyserver.Config)) *harness {
	t.Helper()
	return newHarnessOn(t, mod, false)
}

// newTCPHarness serves on a loopback TCP port instead of bufconn, so that
// clients can connect from other addresses (h.from).
func newTCPHarness(t testing.TB, mod func(*proxyserver.Config)) *harness {
	t.Helper()
	return newHarnessOn(t, mod, true)
}

func newHarnessOn(t testing.TB, mod func(*proxyserver.Config), tcp bool) *harness {
	t.Helper()
	backend, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	cfg := proxyserver.Config{
		Backend: backend,
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := proxyserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var lis net.Listener
	var dialer grpc.DialOption
	target, addr := "passthrough:///bufnet", ""
	if tcp {
		if lis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		addr = lis.Addr().String()
		target = addr
		dialer = grpc.WithContextDialer(func(ctx context.Context, a string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "tcp", a)
		})
	} else {
		bl := bufconn.Listen(1 << 20)
		lis = bl
		dialer = grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return bl.DialContext(ctx) })
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lis) }()
	conn, err := grpc.NewClient(target, dialer,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32), grpc.MaxCallSendMsgSize(math.MaxInt32)),
	)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, srv: srv, backend: backend, conn: conn, client: proxypb.NewGrpcIfrtServiceClient(conn), logs: logs, addr: addr}
	t.Cleanup(func() {
		conn.Close()
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		// Serve returns nil if a test shut the server down before.
		if err := <-done; err != nil && !errors.Is(err, proxyserver.ErrServerClosed) {
			t.Errorf("Serve after Close = %v, want ErrServerClosed", err)
		}
		backend.Close()
		if t.Failed() {
			t.Logf("server log (tail):\n%s", testenv.LastLines(logs.String(), 40))
		}
	})
	return h
}

func ctxT(t testing.TB) context.Context { return testenv.Context(t, testTimeout) }

// sess is one IfrtSession driven with raw requests.
type sess struct {
	t      testing.TB
	h      *harness
	stream proxypb.GrpcIfrtService_IfrtSessionClient
	cancel context.CancelFunc
	id     uint64
	init   *proxypb.InitResponse

	sendMu  sync.Mutex
	mu      sync.Mutex
	nextOp  uint64
	waiting map[uint64]chan *proxypb.IfrtResponse
	early   map[uint64]*proxypb.IfrtResponse
	ended   chan struct{}
}

func (h *harness) session(t testing.TB) *sess {
	t.Helper()
	meta, _ := proto.Marshal(&proxypb.GrpcIfrtSessionMetadata{Version: &proxypb.IfrtProxyVersion{ProtocolVersion: wire.ProtocolMax, IfrtSerdesVersionNumber: 3}})
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.Background(), proxyserver.SessionMetadataKey, string(meta)))
	stream, err := h.client.IfrtSession(ctx)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &sess{t: t, h: h, stream: stream, cancel: cancel, waiting: map[uint64]chan *proxypb.IfrtResponse{}, early: map[uint64]*proxypb.IfrtResponse{}, ended: make(chan struct{})}
	go s.readLoop()
	t.Cleanup(s.close)
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_InitRequest{InitRequest: &proxypb.InitRequest{}}})
	s.init = mustOK(t, resp).GetInitResponse()
	s.id = s.init.GetSessionId()
	return s
}

func (s *sess) readLoop() {
	defer close(s.ended)
	for {
		resp, err := s.stream.Recv()
		if err != nil {
			return
		}
		id := resp.GetResponseMetadata().GetOpId()
		s.mu.Lock()
		if ch, ok := s.waiting[id]; ok {
			delete(s.waiting, id)
			ch <- resp
		} else {
			s.early[id] = resp
		}
		s.mu.Unlock()
	}
}

// send sends req with the next op id and returns the id.
func (s *sess) send(req *proxypb.IfrtRequest) uint64 {
	s.mu.Lock()
	s.nextOp++
	id := s.nextOp
	s.mu.Unlock()
	req.RequestMetadata = &proxypb.RequestMetadata{OpId: id}
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if err := s.stream.Send(req); err != nil {
		s.t.Fatalf("Send: %v", err)
	}
	return id
}

// wait waits for the response to op id.
func (s *sess) wait(id uint64) *proxypb.IfrtResponse {
	s.t.Helper()
	s.mu.Lock()
	if r, ok := s.early[id]; ok {
		delete(s.early, id)
		s.mu.Unlock()
		return r
	}
	ch := make(chan *proxypb.IfrtResponse, 1)
	s.waiting[id] = ch
	s.mu.Unlock()
	select {
	case r := <-ch:
		return r
	case <-s.ended:
		s.t.Fatalf("the session ended while waiting for op %d", id)
	case <-time.After(testTimeout):
		s.t.Fatalf("no response to op %d within %v", id, testTimeout)
	}
	return nil
}

// answered reports whether the response to op id has come (and not been
// waited for yet).
func (s *sess) answered(id uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.early[id]
	return ok
}

// pending reports whether op id is still unanswered after a short while.
func (s *sess) pending(id uint64, d time.Duration) bool {
	time.Sleep(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, answered := s.early[id]
	return !answered
}

func (s *sess) call(req *proxypb.IfrtRequest) *proxypb.IfrtResponse {
	s.t.Helper()
	return s.wait(s.send(req))
}

func (s *sess) close() {
	s.cancel()
	<-s.ended
}

// status returns the response's error, nil if OK.
func status(resp *proxypb.IfrtResponse) error {
	return wire.StatusToError(resp.GetResponseMetadata().GetStatus())
}

func mustOK(t testing.TB, resp *proxypb.IfrtResponse) *proxypb.IfrtResponse {
	t.Helper()
	if err := status(resp); err != nil {
		t.Fatalf("op %d failed: %v", resp.GetResponseMetadata().GetOpId(), err)
	}
	return resp
}

func wantErr(t testing.TB, what string, resp *proxypb.IfrtResponse, want error, substr string) {
	t.Helper()
	err := status(resp)
	if !errors.Is(err, want) {
		t.Errorf("%s: error = %v, want %v", what, err, want)
		return
	}
	if !strings.Contains(err.Error(), substr) {
		t.Errorf("%s: error %q does not contain %q", what, err, substr)
	}
	if resp.GetResponse() != nil {
		t.Errorf("%s: an error response carries a response field", what)
	}
}

// store sends a host buffer in chunks of chunk bytes.
func (s *sess) store(handle uint64, data []byte) error {
	meta, _ := proto.Marshal(&proxypb.GrpcHostBufferStoreMetadata{SessionId: s.id, Handle: handle, BufferSize: int64(len(data))})
	ctx := metadata.AppendToOutgoingContext(ctxT(s.t), proxyserver.HostBufferMetadataKey, string(meta))
	st, err := s.h.client.HostBufferStore(ctx)
	if err != nil {
		return err
	}
	const chunk = 1 << 20
	for off := 0; off < len(data); off += chunk {
		if err := st.Send(&proxypb.GrpcHostBufferStoreRequest{Data: data[off:min(off+chunk, len(data))]}); err != nil {
			if errors.Is(err, io.EOF) {
				break // the server ended the call; CloseAndRecv says why
			}
			return err
		}
	}
	_, err = st.CloseAndRecv()
	return err
}

// lookup fetches a host buffer and counts the messages it came in.
func (s *sess) lookup(handle uint64) ([]byte, int, error) {
	st, err := s.h.client.HostBufferLookup(ctxT(s.t), &proxypb.GrpcHostBufferLookupRequest{SessionId: s.id, Handle: handle})
	if err != nil {
		return nil, 0, err
	}
	var out []byte
	n := 0
	for {
		m, err := st.Recv()
		if err == io.EOF {
			return out, n, nil
		}
		if err != nil {
			return nil, n, err
		}
		n++
		out = append(out, m.GetData()...)
	}
}

// fetch copies array h to the host through FullyReplicatedShard (if
// sharded), CopyToHostBuffer, HostBufferLookup and HostBufferDelete, as
// jaxlib does.
func (s *sess) fetch(h, bufHandle uint64, strides []int64) ([]byte, error) {
	resp := s.call(&proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_CopyToHostBufferRequest{CopyToHostBufferRequest: &proxypb.CopyToHostBufferRequest{
		ArrayHandle: h, HostBufferHandle: bufHandle, ByteStrides: wire.ByteStridesToProto(strides)}}})
	if err := status(resp); err != nil {
		return nil, err
	}
	data, _, err := s.lookup(bufHandle)
	if err != nil {
		return nil, err
	}
	_, err = s.h.client.HostBufferDelete(ctxT(s.t), &proxypb.GrpcHostBufferDeleteRequest{SessionId: s.id, Handle: bufHandle})
	return data, err
}

// makeArray stores data and makes an array from it under handle (also the
// host buffer handle, as jaxlib does).
func (s *sess) makeArray(handle uint64, data []byte, dt ifrt.DType, shape ifrt.Shape, sh ifrt.Sharding) {
	s.t.Helper()
	if err := s.store(handle, data); err != nil {
		s.t.Fatalf("HostBufferStore: %v", err)
	}
	mustOK(s.t, s.call(makeArrayReq(s.t, handle, dt, shape, sh)))
}

func makeArrayReq(t testing.TB, handle uint64, dt ifrt.DType, shape ifrt.Shape, sh ifrt.Sharding) *proxypb.IfrtRequest {
	t.Helper()
	dtp, err := wire.DTypeToProto(dt)
	if err != nil {
		t.Fatal(err)
	}
	shp, err := wire.ShardingToProto(sh)
	if err != nil {
		t.Fatal(err)
	}
	return &proxypb.IfrtRequest{Request: &proxypb.IfrtRequest_MakeArrayFromHostBufferRequest{MakeArrayFromHostBufferRequest: &proxypb.MakeArrayFromHostBufferRequest{
		Dtype: dtp, Shape: wire.ShapeToProto(shape), Sharding: shp, HostBufferHandle: handle, ArrayHandle: &handle,
	}}}
}

func (h *harness) devs(ids ...int) ifrt.DeviceList {
	out := make(ifrt.DeviceList, len(ids))
	for i, id := range ids {
		out[i] = h.backend.Devices()[id]
	}
	return out
}

func (h *harness) single(id int) ifrt.Sharding {
	return ifrt.NewSingleDeviceSharding(h.backend.Devices()[id], "")
}

func f32bytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return out
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func iota32(n int) []byte {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return f32bytes(v...)
}

// expectFreed waits until the server has no sessions and the backend holds
// nothing.
func (h *harness) expectFreed(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		a, e := h.backend.Live()
		if h.srv.Sessions() == 0 && a == 0 && e == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	a, e := h.backend.Live()
	t.Fatalf("after the sessions ended: %d sessions, %d arrays and %d executables remain", h.srv.Sessions(), a, e)
}

// checkGoroutines fails t if, after the test's cleanups, more goroutines run
// than before it.
func checkGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("%d goroutines before the test, %d after:\n%s", before, n, buf)
		}
	})
}
