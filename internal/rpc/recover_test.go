package rpc_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
)

// panickyHealth panics in Check and Watch for the service "panic" and answers
// SERVING otherwise.
type panickyHealth struct {
	grpc_health_v1.UnimplementedHealthServer
}

func (panickyHealth) Check(_ context.Context, req *grpc_health_v1.HealthCheckRequest) (*grpc_health_v1.HealthCheckResponse, error) {
	if req.GetService() == "panic" {
		panic("test: a bug in a unary handler")
	}
	return &grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING}, nil
}

func (panickyHealth) Watch(req *grpc_health_v1.HealthCheckRequest, stream grpc_health_v1.Health_WatchServer) error {
	if req.GetService() == "panic" {
		panic("test: a bug in a stream handler")
	}
	return stream.Send(&grpc_health_v1.HealthCheckResponse{Status: grpc_health_v1.HealthCheckResponse_SERVING})
}

// lockedBuffer is a log destination the server's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPanicIsInternalForItsCall: a panic in a unary or stream handler, or in
// an interceptor the server's owner added (Config.ServerOptions come after
// ServerOptions), fails that call with INTERNAL, logged at Error with its
// stack, and the server goes on.
func TestPanicIsInternalForItsCall(t *testing.T) {
	var logs lockedBuffer
	ownerInterceptor := grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if r, ok := req.(*grpc_health_v1.HealthCheckRequest); ok && r.GetService() == "panic-in-interceptor" {
			panic("test: a bug in an interceptor")
		}
		return h(ctx, req)
	})
	opts := rpc.ServerOptions(rpc.ServerConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	gs := grpc.NewServer(append(opts, ownerInterceptor)...)
	grpc_health_v1.RegisterHealthServer(gs, panickyHealth{})
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go gs.Serve(lis)
	t.Cleanup(gs.Stop)
	client := grpc_health_v1.NewHealthClient(dial(t, lis.Addr().String(), rpc.Auth{}))
	ctx := ctxT(t)

	check := func(service string) error {
		_, err := client.Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: service})
		return rpc.FromStatus(err)
	}
	watch := func(service string) error {
		stream, err := client.Watch(ctx, &grpc_health_v1.HealthCheckRequest{Service: service})
		if err != nil {
			return rpc.FromStatus(err)
		}
		_, err = stream.Recv()
		return rpc.FromStatus(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"unary handler", func() error { return check("panic") }},
		{"stream handler", func() error { return watch("panic") }},
		{"interceptor", func() error { return check("panic-in-interceptor") }},
	} {
		if err := tc.call(); !errors.Is(err, ifrt.ErrInternal) {
			t.Errorf("a call whose %s panicked = %v, want INTERNAL", tc.name, err)
		}
		if err := check(""); err != nil {
			t.Errorf("a unary call after the %s panicked: %v", tc.name, err)
		}
		if err := watch(""); err != nil {
			t.Errorf("a stream call after the %s panicked: %v", tc.name, err)
		}
	}
	got := logs.String()
	if n := strings.Count(got, "level=ERROR msg=\"rpc handler panicked\""); n != 3 {
		t.Errorf("%d panics logged at Error, want 3:\n%s", n, got)
	}
	if !strings.Contains(got, "runtime/debug.Stack") || !strings.Contains(got, "grpc.health.v1.Health/Watch") {
		t.Errorf("the panics were not logged with their stacks and methods:\n%s", got)
	}
}
