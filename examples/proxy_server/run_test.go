package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/internal/serverflags"
	"github.com/openpathways/pathways/internal/testenv"
)

func TestParse(t *testing.T) {
	c, err := parse([]string{"--resource_manager_address=head:29001", "--gcs_scratch_location=gs://bucket/x", "--num_elastic_slices=2",
		"--virtual_slices=tpuv6e:2x2,tpuv6e:2x2,tpuv6e:2x2", "--xla_tpu_scoped_vmem_limit_kib=98304", "--large_transfer_directory=/tmp/ifrt_proxy"}, nil, io.Discard)
	if err != nil || c.port != 29000 || c.elastic != 2 || len(c.virtualSlices) != 3 || c.xla["xla_tpu_scoped_vmem_limit_kib"] != "98304" || c.largeTransfer != "/tmp/ifrt_proxy" {
		t.Errorf("%+v, %v", c, err)
	}
	c, err = parse([]string{"--resource_manager_address=head:29001", "--num_elastic_instances=1", "--num_elastic_slices=1"}, nil, io.Discard)
	if err != nil || c.elastic != 1 {
		t.Errorf("both spellings agreeing: %+v, %v", c, err)
	}
}

func TestParseRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{}, "--resource_manager_address is required"},
		{[]string{"--resource_manager_address=head"}, "host:port"},
		{[]string{"--resource_manager_address=h:1", "--num_elastic_instances=1", "--num_elastic_slices=2"}, "disagree"},
		{[]string{"--resource_manager_address=h:1", "--num_elastic_instances=-1"}, "0 or more"},
		{[]string{"--resource_manager_address=h:1", "--virtual_slices=tpuv6e"}, "--virtual_slices"},
		{[]string{"--resource_manager_address=h:1", "--virtual_slices=tpuv6e:2x2,"}, "--virtual_slices"},
		{[]string{"--resource_manager_address=h:1", "--virtual_slices=cpu:4,cpu:4", "--num_elastic_instances=2"}, "every one"},
		{[]string{"--resource_manager_address=h:1", "--xla_Bad=1"}, "XLA flag"},
		{[]string{"--resource_manager_address=h:1", "--gcs_scratch_location=gs://x"}, "bucket"},
		{[]string{"--resource_manager_address=h:1", "--server_port=-2"}, "not a port"},
	} {
		_, err := parse(tc.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	if _, err := parse([]string{"--resource_manager_address=h:1", "--node_type=worker"}, nil, io.Discard); err != serverflags.ErrUsage {
		t.Errorf("unknown flag: %v, want serverflags.ErrUsage", err)
	}
}

// TestRun serves a local cluster through run and stops on cancel; virtual
// slices the cluster cannot give are refused.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l := startCluster(t, ctx, 2)

	err := run(ctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:2,cpu:2,cpu:2"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "asks for 3 slices") {
		t.Errorf("3 virtual slices of 2: %v", err)
	}
	err = run(ctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:4"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cpu:2") {
		t.Errorf("a virtual slice of another type: %v", err)
	}

	rctx, stop := context.WithCancel(ctx)
	out := testenv.NewLineWriter(4)
	logs := testenv.NewLineWriter(64)
	done := make(chan error, 1)
	go func() {
		done <- run(rctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:2,cpu:2", "--xla_cpu_flag=1"}, nil, out, logs)
	}()
	select {
	case line := <-out.C:
		if !strings.Contains(line, "IFRT proxy server started with status OK") || !strings.Contains(line, "4 devices") {
			t.Errorf("ready line %q", line)
		}
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("after cancel: %v", err)
	}
	placed := 0
	for len(logs.C) > 0 {
		if strings.Contains(<-logs.C, "unplaced -> placed") {
			placed++
		}
	}
	if placed != 2 {
		t.Errorf("%d slices logged as placed, want 2", placed)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startCluster starts an in-process cluster of the given number of slices of
// two devices, without a proxy of its own, closed when the test ends.
func startCluster(t *testing.T, ctx context.Context, slices int) *localtest.Cluster {
	t.Helper()
	l, err := localtest.Start(ctx, local.Config{Slices: slices, DevicesPerSlice: 2, NoProxy: true, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestHelp: --help is a successful request for the usage.
func TestHelp(t *testing.T) {
	var usage strings.Builder
	if _, err := parse([]string{"--help"}, nil, &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parse(--help) = %v, want flag.ErrHelp (exit 0)", err)
	}
	if !strings.Contains(usage.String(), "-num_elastic_instances") {
		t.Errorf("usage lacks the flags:\n%s", usage.String())
	}
}

// TestHealthAfterTheElasticLimit: after more slices were lost than
// --num_elastic_instances allows, nothing told an orchestrator (issue 11,
// defect 8). The standard health service turns NOT_SERVING while they are
// lost, and SERVING once they are back (new sessions then run).
func TestHealthAfterTheElasticLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l := startCluster(t, ctx, 2)
	health, stop := startHealthProxy(t, ctx, l.RMAddress)
	check := func() grpc_health_v1.HealthCheckResponse_ServingStatus {
		r, err := health.Check(ctx, &grpc_health_v1.HealthCheckRequest{})
		if err != nil {
			t.Fatalf("health check: %v", err)
		}
		return r.GetStatus()
	}
	if st := check(); st != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v before any loss", st)
	}
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	for check() != grpc_health_v1.HealthCheckResponse_NOT_SERVING {
		if ctx.Err() != nil {
			t.Fatal("the health service never reported NOT_SERVING")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for check() != grpc_health_v1.HealthCheckResponse_SERVING {
		if ctx.Err() != nil {
			t.Fatal("the health service never reported SERVING again after the slice came back")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Errorf("after cancel: %v", err)
	}
}

func TestParseSecurityAndLimits(t *testing.T) {
	c, err := parse([]string{"--resource_manager_address=h:1", "--listen_address=10.0.0.5", "--max_sessions=4", "--max_message_bytes=64MiB", "--keepalive_interval=2s"},
		func(k string) string { return map[string]string{"PATHWAYS_CLUSTER_TOKEN": "t0k"}[k] }, io.Discard)
	if err != nil || c.security.Token != "t0k" || c.common.ListenAddress != "10.0.0.5" || c.limits.MaxSessions != 4 || c.limits.MaxMessageBytes != 64<<20 || c.common.KeepaliveInterval != 2*time.Second {
		t.Errorf("%+v, %v", c, err)
	}
	for _, args := range [][]string{
		{"--resource_manager_address=h:1", "--listen_address=10.0.0.5:29000"},
		{"--resource_manager_address=h:1", "--max_message_bytes=4GiB"},
		{"--resource_manager_address=h:1", "--keepalive_timeout=0s"},
	} {
		if _, err := parse(args, nil, io.Discard); err == nil {
			t.Errorf("%q: accepted", args)
		}
	}
}
