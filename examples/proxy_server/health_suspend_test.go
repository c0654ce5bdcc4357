package main

import (
	"context"
	"io"
	"regexp"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
)

// TestHealthWhileASliceIsSuspended: a preempted worker suspends its slice
// and leaves. That slice is not down in the sense of
// --num_elastic_instances (the sessions' clients do not count it), and the
// health service agrees: with --num_elastic_instances=0 it reports SERVING
// once a slice that was really lost is back, while the suspended one still
// waits for its replacement.
func TestHealthWhileASliceIsSuspended(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := localtest.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true, Logger: quiet(), ScratchLocation: "file://" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	health, stop := startHealthProxy(t, ctx, l.RMAddress)
	waitFor := func(want grpc_health_v1.HealthCheckResponse_ServingStatus, when string) {
		t.Helper()
		var last grpc_health_v1.HealthCheckResponse_ServingStatus
		for {
			r, err := health.Check(ctx, &grpc_health_v1.HealthCheckRequest{})
			if ctx.Err() != nil {
				t.Fatalf("%s: the health service reports %v, never %v", when, last, want)
			}
			if err != nil {
				t.Fatalf("health check: %v", err)
			}
			if last = r.GetStatus(); last == want {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	if err := l.PreemptWorker(ctx, 1); err != nil {
		t.Fatalf("PreemptWorker: %v", err)
	}
	rmc, err := rm.NewClient(l.RMAddress, rm.WithLogger(quiet()))
	if err != nil {
		t.Fatal(err)
	}
	defer rmc.Close()
	view, err := rmc.Cluster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := view.Slices[1]; s.Up || s.State != rm.SliceSuspended {
		t.Fatalf("after the preemption slice 1 is %+v; want down and SUSPENDED", s)
	}
	// Slice 0 lost and back: the health service has seen everything up to
	// then, the suspended slice's leaving included.
	if err := l.StopWorker(0); err != nil {
		t.Fatal(err)
	}
	waitFor(grpc_health_v1.HealthCheckResponse_NOT_SERVING, "slice 0 lost")
	if err := l.StartWorker(ctx, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(grpc_health_v1.HealthCheckResponse_SERVING, "slice 0 back, slice 1 suspended")
	if err := stop(); err != nil {
		t.Errorf("after cancel: %v", err)
	}
}

// startHealthProxy runs the proxy server with --num_elastic_instances=0
// against the RM at rmAddress, and returns a client of its health service
// and a function that stops it and returns how run ended.
func startHealthProxy(t *testing.T, ctx context.Context, rmAddress string) (grpc_health_v1.HealthClient, func() error) {
	t.Helper()
	rctx, cancel := context.WithCancel(ctx)
	out := testenv.NewLineWriter(4)
	done := make(chan error, 1)
	go func() {
		done <- run(rctx, []string{"--server_port=0", "--listen_address=127.0.0.1", "--resource_manager_address=" + rmAddress, "--num_elastic_instances=0"}, nil, out, io.Discard)
	}()
	stop := func() error {
		cancel()
		return <-done
	}
	var addr string
	select {
	case line := <-out.C:
		m := regexp.MustCompile(`ready on (\S+)`).FindStringSubmatch(line)
		if m == nil {
			cancel()
			t.Fatalf("ready line %q", line)
		}
		addr = m[1]
	case err := <-done:
		cancel()
		t.Fatalf("run: %v", err)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		_ = stop() // the failure to report is the dial's
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		cancel()
	})
	return grpc_health_v1.NewHealthClient(conn), stop
}
