package worker_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker"
	"github.com/openpathways/pathways/worker/workerpb"
)

// TestPeerHandlerPanicIsInternal: a panic in a peer handler (here in the
// backend, reading an array for ReadArray) killed the worker. It now fails
// that call with INTERNAL and the worker goes on.
func TestPeerHandlerPanicIsInternal(t *testing.T) {
	s := startStandaloneWith(t, func(b ifrt.Client) ifrt.Client { return panickyReads{b} })
	ctx, c := dialPeerTest(t, s)
	read := func(elems int) error {
		a, h := upload(t, ctx, c, elems)
		defer runtime.KeepAlive(a)
		return readOverPeer(t, ctx, s, c, h)
	}
	if err := read(panickyElems); !errors.Is(err, ifrt.ErrInternal) {
		t.Fatalf("ReadArray whose handler panicked = %v, want INTERNAL", err)
	}
	if err := read(4); err != nil {
		t.Errorf("ReadArray after the panic: %v", err)
	}
}

// dialPeerTest opens a proxy session on s for the test.
func dialPeerTest(t *testing.T, s *standalone) (context.Context, *proxy.Client) {
	t.Helper()
	ctx := testenv.Context(t, defaultTestTimeout)
	c, err := proxy.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return ctx, c
}

// upload makes an f32 array of elems zeros on c's first device and returns it
// with its handle.
func upload(t *testing.T, ctx context.Context, c *proxy.Client, elems int) (ifrt.Array, uint64) {
	t.Helper()
	a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 4*elems), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{int64(elems)}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var h proxy.ArrayHandle
	if !a.As(&h) {
		t.Fatal("no handle")
	}
	return a, uint64(h)
}

// readOverPeer reads c's array h through s's peer service and returns the
// call's error as the module's clients see it.
func readOverPeer(t *testing.T, ctx context.Context, s *standalone, c *proxy.Client, h uint64) error {
	stream, err := s.peer(t).ReadArray(ctx, &workerpb.ReadArrayRequest{Array: &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: h}})
	if err == nil {
		_, err = stream.Recv()
	}
	return rpc.FromStatus(err)
}

// panickyElems is the size of the arrays whose reads panic.
const panickyElems = 5

// panickyReads is a backend whose arrays of panickyElems elements panic when
// read.
type panickyReads struct{ ifrt.Client }

func (p panickyReads) MakeArrayFromHostBuffer(ctx context.Context, data []byte, spec ifrt.ArraySpec, opts *ifrt.HostBufferOptions) (ifrt.Array, error) {
	a, err := p.Client.MakeArrayFromHostBuffer(ctx, data, spec, opts)
	if err != nil || spec.Shape.NumElements() != panickyElems {
		return a, err
	}
	return panickyArray{a}, nil
}

type panickyArray struct{ ifrt.Array }

func (panickyArray) CopyToHostBuffer(context.Context, []byte, []int64) error {
	panic("test: a bug in the backend")
}

// TestGangPanicIsInternal: the gang service's calls, unary (Compile) and
// streaming (Exchange), run under the same recovery as the peer service: a
// panic under them (here in an interceptor of Config.ServerOptions, which
// come after the module's) fails that call with INTERNAL and the worker goes
// on.
func TestGangPanicIsInternal(t *testing.T) {
	inGang := func(method string) bool { return strings.HasPrefix(method, "/openpathways.worker.v1.Gang/") }
	backend, err := gocpu.New(gocpu.Config{Devices: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	w, err := worker.New(worker.Config{Backend: backend, Logger: slog.New(slog.DiscardHandler), ServerOptions: []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if inGang(info.FullMethod) {
				panic("test: a bug under a gang call")
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if inGang(info.FullMethod) {
				panic("test: a bug under a gang stream")
			}
			return h(srv, ss)
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go w.Serve(lis)
	defer w.Close()
	<-w.Ready()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	gang := workerpb.NewGangClient(conn)

	_, err = gang.Compile(ctx, &workerpb.GangCompileRequest{})
	if err := rpc.FromStatus(err); !errors.Is(err, ifrt.ErrInternal) {
		t.Errorf("a Compile that panicked = %v, want INTERNAL", err)
	}
	stream, err := gang.Exchange(ctx)
	if err == nil {
		_, err = stream.CloseAndRecv()
	}
	if err := rpc.FromStatus(err); !errors.Is(err, ifrt.ErrInternal) {
		t.Errorf("an Exchange that panicked = %v, want INTERNAL", err)
	}
	// The worker goes on: its peer service still answers.
	_, err = workerpb.NewPeerClient(conn).Gather(ctx, &workerpb.GatherRequest{})
	if err := rpc.FromStatus(err); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("a Gather after the panics = %v, want its own INVALID_ARGUMENT", err)
	}
}
