package rpc_test

import (
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

// panicLog keeps the messages logged at Error, with their method and stack.
type panicLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *panicLog) Enabled(_ context.Context, level slog.Level) bool { return level >= slog.LevelError }

func (l *panicLog) Handle(_ context.Context, r slog.Record) error {
	entry := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "method" || a.Key == "stack" {
			entry += " " + a.Key + "=" + a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, entry)
	return nil
}

func (l *panicLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *panicLog) WithGroup(string) slog.Handler      { return l }

// TestPanicIsInternalForItsCall: a panic in a unary or stream handler, or in
// an interceptor the server's owner added (Config.ServerOptions come after
// ServerOptions), fails that call with INTERNAL, logged at Error with its
// stack, and the server goes on.
func TestPanicIsInternalForItsCall(t *testing.T) {
	logs := &panicLog{}
	ownerInterceptor := grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if r, ok := req.(*grpc_health_v1.HealthCheckRequest); ok && r.GetService() == "panic-in-interceptor" {
			panic("test: a bug in an interceptor")
		}
		return h(ctx, req)
	})
	opts := rpc.ServerOptions(rpc.ServerConfig{Logger: slog.New(logs)})
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
	logs.mu.Lock()
	defer logs.mu.Unlock()
	if len(logs.entries) != 3 {
		t.Fatalf("%d panics logged at Error, want 3: %q", len(logs.entries), logs.entries)
	}
	for _, e := range logs.entries {
		if !strings.HasPrefix(e, "rpc handler panicked method=/grpc.health.v1.Health/") || !strings.Contains(e, "runtime/debug.Stack") {
			t.Errorf("a panic was logged without its method or stack: %s", e)
		}
	}
}
