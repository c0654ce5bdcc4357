package local_test

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/worker"
)

// lifecycleServer is what the three servers share.
type lifecycleServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// TestHealthFollowsLifecycle: every server (resource manager, worker, proxy
// server) serves the standard health service, SERVING while it serves; a
// watcher sees NOT_SERVING as soon as Shutdown begins, and the watch does not
// hold the shutdown up.
func TestHealthFollowsLifecycle(t *testing.T) {
	backend := func(t *testing.T) *gocpu.Client {
		c, err := gocpu.New(gocpu.Config{Devices: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	for name, start := range map[string]func(t *testing.T) lifecycleServer{
		"rm": func(t *testing.T) lifecycleServer {
			s, err := rm.New(rm.Config{InstanceType: "cpu:2", InstanceCount: 1, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"worker": func(t *testing.T) lifecycleServer {
			s, err := worker.New(worker.Config{Backend: backend(t), Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"proxy server": func(t *testing.T) lifecycleServer {
			s, err := proxyserver.New(proxyserver.Config{Backend: backend(t), Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := testenv.Context(t, 30*time.Second)
			srv := start(t)
			lis, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			served := make(chan error, 1)
			go func() { served <- srv.Serve(lis) }()
			conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			health := grpc_health_v1.NewHealthClient(conn)
			var resp *grpc_health_v1.HealthCheckResponse
			for { // Serve may not have registered the service yet
				if resp, err = health.Check(ctx, &grpc_health_v1.HealthCheckRequest{}); err == nil || ctx.Err() != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if resp.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
				t.Fatalf("while serving: %v, %v; want SERVING", resp.GetStatus(), err)
			}
			watch, err := health.Watch(ctx, &grpc_health_v1.HealthCheckRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if first, err := watch.Recv(); err != nil || first.GetStatus() != grpc_health_v1.HealthCheckResponse_SERVING {
				t.Fatalf("watch: %v, %v; want SERVING", first.GetStatus(), err)
			}
			shut := make(chan error, 1)
			go func() { shut <- srv.Shutdown(ctx) }()
			if next, err := watch.Recv(); err != nil || next.GetStatus() != grpc_health_v1.HealthCheckResponse_NOT_SERVING {
				t.Errorf("watch after Shutdown began: %v, %v; want NOT_SERVING", next.GetStatus(), err)
			}
			if err := <-shut; err != nil {
				t.Errorf("Shutdown with a health watcher: %v", err)
			}
			if err := <-served; err != nil {
				t.Errorf("Serve after Shutdown: %v", err)
			}
		})
	}
}
