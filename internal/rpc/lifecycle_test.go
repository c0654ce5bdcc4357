package rpc_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
)

func newLifecycle(drained, aborted, finished *int) *rpc.Lifecycle {
	return &rpc.Lifecycle{
		Build: func() *grpc.Server {
			gs := grpc.NewServer(rpc.ServerOptions(rpc.ServerConfig{})...)
			grpc_health_v1.RegisterHealthServer(gs, health.NewServer())
			return gs
		},
		Drain:  func(context.Context) error { *drained++; return nil },
		Abort:  func() { *aborted++ },
		Finish: func() { *finished++ },
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return lis
}

// serveLifecycle runs l.Serve on a new listener and waits until it answers.
func serveLifecycle(t *testing.T, l *rpc.Lifecycle) <-chan error {
	t.Helper()
	lis := listen(t)
	served := make(chan error, 1)
	go func() { served <- l.Serve(lis, nil) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := testenv.Context(t, time.Minute)
	if _, err := grpc_health_v1.NewHealthClient(conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatal(err)
	}
	return served
}

// TestLifecycleServeAfterShutdownRefuses: worker.Serve after Shutdown served
// again. Every server's Serve now refuses with ErrServerClosed.
func TestLifecycleServeAfterShutdownRefuses(t *testing.T) {
	var drained, aborted, finished int
	l := newLifecycle(&drained, &aborted, &finished)
	served := serveLifecycle(t, l)
	if err := l.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after Shutdown returned %v, want nil", err)
	}
	if err := l.Serve(listen(t), nil); !errors.Is(err, rpc.ErrServerClosed) {
		t.Errorf("Serve called after Shutdown = %v, want ErrServerClosed", err)
	}
	if err := l.Shutdown(context.Background()); err != nil {
		t.Errorf("a second Shutdown = %v", err)
	}
	l.Close()
	if drained != 1 || aborted != 1 || finished != 1 {
		t.Errorf("Drain ran %d times, Abort %d, Finish %d; want 1, 1 (Close), 1", drained, aborted, finished)
	}
}

func TestLifecycleClose(t *testing.T) {
	var drained, aborted, finished int
	l := newLifecycle(&drained, &aborted, &finished)
	served := serveLifecycle(t, l)
	l.Close()
	if err := <-served; !errors.Is(err, rpc.ErrServerClosed) {
		t.Errorf("Serve after Close = %v, want ErrServerClosed", err)
	}
	if err := l.Serve(listen(t), nil); !errors.Is(err, rpc.ErrServerClosed) {
		t.Errorf("Serve called after Close = %v, want ErrServerClosed", err)
	}
	if drained != 0 || aborted != 1 || finished != 1 {
		t.Errorf("Drain ran %d times, Abort %d, Finish %d; want 0, 1, 1", drained, aborted, finished)
	}
}

// TestLifecycleShutdownCutShort: a drain that outlasts Shutdown's context is
// cut off, and Shutdown returns the context's error.
func TestLifecycleShutdownCutShort(t *testing.T) {
	var drained, aborted, finished int
	l := newLifecycle(&drained, &aborted, &finished)
	l.Drain = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	served := serveLifecycle(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Shutdown(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Shutdown past its context = %v, want Canceled", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve = %v, want nil", err)
	}
	if aborted == 0 || finished != 1 {
		t.Errorf("Abort ran %d times, Finish %d; want Abort and one Finish", aborted, finished)
	}
}

func TestLifecycleStartedFails(t *testing.T) {
	var drained, aborted, finished int
	l := newLifecycle(&drained, &aborted, &finished)
	refused := errors.New("the RM refused the registration")
	if err := l.Serve(listen(t), func() error { return refused }); err != refused {
		t.Errorf("Serve whose start failed = %v, want its error", err)
	}
	if !l.Stopped() || aborted != 1 {
		t.Errorf("after a failed start: stopped %v, Abort ran %d times; want closed", l.Stopped(), aborted)
	}
}
