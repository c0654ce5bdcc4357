package worker_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker"
	"github.com/openpathways/pathways/worker/workerpb"
)

const defaultTestTimeout = 30 * time.Second

type standalone struct {
	w       *worker.Server
	backend *gocpu.Client
	addr    string
	served  chan error
}

// startStandalone serves a worker over 2 gocpu devices on loopback, with no RM.
func startStandalone(t testing.TB) *standalone {
	return startStandaloneWith(t, func(b ifrt.Client) ifrt.Client { return b })
}

// startStandaloneWith serves a worker over wrap(2 gocpu devices).
func startStandaloneWith(t testing.TB, wrap func(ifrt.Client) ifrt.Client) *standalone {
	t.Helper()
	backend, err := gocpu.New(gocpu.Config{Devices: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, err := worker.New(worker.Config{Backend: wrap(backend), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &standalone{w: w, backend: backend, addr: lis.Addr().String(), served: make(chan error, 1)}
	go func() { s.served <- w.Serve(lis) }()
	t.Cleanup(func() { w.Close(); backend.Close() })
	<-w.Ready()
	return s
}

func (s *standalone) peer(t *testing.T) workerpb.PeerClient {
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return workerpb.NewPeerClient(conn)
}

// gated is a backend whose MakeArrayFromHostBuffer of a 3-element array waits
// until release is closed: a request the test can hold in progress.
type gated struct {
	ifrt.Client
	entered chan struct{} // receives once per held call
	release chan struct{}
}

func (g *gated) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	if spec.Shape.NumElements() == 3 {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Client.MakeArrayFromHostBuffer(ctx, data, spec, opts)
}

// startHeldUpload serves a worker over a gated backend, opens a session with
// an array on it (closed when the test ends), and starts an upload of a
// 3-element array, which the gate holds; upload yields its outcome once it
// finishes.
func startHeldUpload(t *testing.T, ctx context.Context) (s *standalone, g *gated, upload <-chan error) {
	t.Helper()
	g = &gated{entered: make(chan struct{}, 1), release: make(chan struct{})}
	s = startStandaloneWith(t, func(b ifrt.Client) ifrt.Client { g.Client = b; return g })
	c := dialWithArray(t, ctx, s)
	t.Cleanup(func() { c.Close() })
	done := make(chan error, 1)
	go func() {
		_, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 12), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil)
		done <- err
	}()
	<-g.entered
	return s, g, done
}

// TestShutdownDrains shuts down while a request is in progress (issue 11: SIGTERM
// failed the step in flight): the request finishes and succeeds, Shutdown waits
// for it, then ends the session and frees what it held, and Serve returns nil.
func TestShutdownDrains(t *testing.T) {
	ctx := testenv.Context(t, defaultTestTimeout)
	s, g, upload := startHeldUpload(t, ctx)
	done := make(chan error, 1)
	go func() { done <- s.w.Shutdown(ctx) }()
	// New sessions are refused as soon as the drain starts.
	for {
		late, err := proxy.Dial(ctx, "grpc://"+s.addr, proxy.WithConnectTimeout(time.Second))
		if err != nil {
			break
		}
		late.Close() // connected before the drain began
	}
	select {
	case err := <-done:
		t.Fatalf("Shutdown returned %v while a request was in progress", err)
	default:
	}
	close(g.release)
	if err := <-upload; err != nil {
		t.Errorf("the request in progress at Shutdown failed: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-s.served; err != nil {
		t.Errorf("Serve after Shutdown = %v, want nil", err)
	}
	if arrays, _ := s.backend.Live(); arrays != 0 {
		t.Errorf("after Shutdown the backend holds %d arrays", arrays)
	}
	if err := s.w.Shutdown(ctx); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

// TestShutdownDeadline ends sessions whose work outlives the drain's deadline.
func TestShutdownDeadline(t *testing.T) {
	ctx := testenv.Context(t, defaultTestTimeout)
	s, g, upload := startHeldUpload(t, ctx)
	short, cancelShort := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelShort()
	if err := s.w.Shutdown(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown with a request in progress past the deadline = %v, want DeadlineExceeded", err)
	}
	close(g.release)
	if err := <-upload; err != nil {
		t.Logf("the upload whose session Shutdown ended: %v", err) // either outcome is fine
	}
	deadline := time.Now().Add(defaultTestTimeout)
	for arrays, _ := s.backend.Live(); arrays != 0; arrays, _ = s.backend.Live() {
		if time.Now().After(deadline) {
			t.Fatalf("after a forced Shutdown the backend holds %d arrays", arrays)
		}
		time.Sleep(time.Millisecond)
	}
}

func dialWithArray(t *testing.T, ctx context.Context, s *standalone) *proxy.Client {
	t.Helper()
	c, err := proxy.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestGatherRejectsBadRequests(t *testing.T) {
	s := startStandalone(t)
	peer := s.peer(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	domain := func(origin, shape []int64) *workerpb.Domain { return &workerpb.Domain{Origin: origin, Shape: shape} }
	f32 := int32(ifrt.F32)
	tests := []struct {
		name string
		req  *workerpb.GatherRequest
		want codes.Code
	}{
		{"empty", &workerpb.GatherRequest{}, codes.InvalidArgument},
		{"bad dtype", &workerpb.GatherRequest{Dtype: 77, Domain: domain([]int64{0}, []int64{1})}, codes.InvalidArgument},
		{"negative extent", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0}, []int64{-1})}, codes.InvalidArgument},
		{"ranks differ", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0, 0}, []int64{1})}, codes.InvalidArgument},
		{"overflowing size", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0, 0}, []int64{1 << 40, 1 << 40})}, codes.InvalidArgument},
		{"over the size limit", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0}, []int64{1 << 40})}, codes.ResourceExhausted},
		{"unknown device", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0}, []int64{4}), DeviceId: 99}, codes.NotFound},
		{"uncovered", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0}, []int64{4})}, codes.InvalidArgument},
		{"unknown session", &workerpb.GatherRequest{Dtype: f32, Domain: domain([]int64{0}, []int64{4}), Pieces: []*workerpb.Piece{{
			Array: &workerpb.ArrayRef{SessionId: 12345, Handle: 1}, Domain: domain([]int64{0}, []int64{4}),
		}}}, codes.NotFound},
	}
	for _, tc := range tests {
		_, err := peer.Gather(ctx, tc.req)
		if got := status.Code(err); got != tc.want {
			t.Errorf("%s: Gather = %v, want %v", tc.name, err, tc.want)
		}
	}
	_, err := peer.ReadArray(ctx, &workerpb.ReadArrayRequest{Array: &workerpb.ArrayRef{SessionId: 1, Handle: 1}})
	if err == nil {
		stream, _ := peer.ReadArray(ctx, &workerpb.ReadArrayRequest{})
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.NotFound {
		t.Errorf("ReadArray of an unknown session = %v, want NotFound", err)
	}
}

// FuzzGather sends arbitrary Gather requests: each gets an answer (an error, for
// almost all), the worker never panics, and it keeps serving.
func FuzzGather(f *testing.F) {
	seed, _ := proto.Marshal(&workerpb.GatherRequest{Dtype: int32(ifrt.F32), Domain: &workerpb.Domain{Origin: []int64{0}, Shape: []int64{4}},
		Pieces: []*workerpb.Piece{{Array: &workerpb.ArrayRef{SessionId: 1, Handle: 1}, Domain: &workerpb.Domain{Origin: []int64{2}, Shape: []int64{2}}}}})
	f.Add(seed)
	f.Add([]byte{})
	s := startStandalone(f)
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	peer := workerpb.NewPeerClient(conn)
	f.Fuzz(func(t *testing.T, data []byte) {
		var req workerpb.GatherRequest
		if proto.Unmarshal(data, &req) != nil {
			return
		}
		ctx := testenv.Context(t, defaultTestTimeout)
		_, err := peer.Gather(ctx, &req)
		if code := status.Code(err); code == codes.Unavailable || code == codes.Internal || code == codes.Unknown {
			t.Fatalf("Gather(%v) = %v", &req, err)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("Gather(%v) hung", &req)
		}
	})
}
