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

	"github.com/openpathways/pathways"
)

func TestParse(t *testing.T) {
	c, err := parse([]string{"--resource_manager_address=head:29001", "--gcs_scratch_location=gs://bucket/x", "--num_elastic_slices=2",
		"--virtual_slices=tpuv6e:2x2,tpuv6e:2x2,tpuv6e:2x2", "--xla_tpu_scoped_vmem_limit_kib=98304"}, io.Discard)
	if err != nil || c.port != 29000 || c.elastic != 2 || len(c.virtualSlices) != 3 || c.xla["xla_tpu_scoped_vmem_limit_kib"] != "98304" {
		t.Errorf("%+v, %v", c, err)
	}
	c, err = parse([]string{"--resource_manager_address=head:29001", "--num_elastic_instances=1", "--num_elastic_slices=1"}, io.Discard)
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
		_, err := parse(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.want)
		}
	}
	if _, err := parse([]string{"--resource_manager_address=h:1", "--node_type=worker"}, io.Discard); err != errUsage {
		t.Errorf("unknown flag: %v, want errUsage", err)
	}
}

type lineWaiter struct{ ch chan string }

func (w *lineWaiter) Write(p []byte) (int, error) {
	for _, l := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		select {
		case w.ch <- l:
		default:
		}
	}
	return len(p), nil
}

// TestRun serves a local cluster through run and stops on cancel; virtual
// slices the cluster cannot give are refused.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := pathways.StartLocal(ctx, pathways.LocalConfig{Slices: 2, DevicesPerSlice: 2, NoProxy: true, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	err = run(ctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:2,cpu:2,cpu:2"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "asks for 3 slices") {
		t.Errorf("3 virtual slices of 2: %v", err)
	}
	err = run(ctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:4"}, nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cpu:2") {
		t.Errorf("a virtual slice of another type: %v", err)
	}

	rctx, stop := context.WithCancel(ctx)
	out := &lineWaiter{ch: make(chan string, 4)}
	logs := &lineWaiter{ch: make(chan string, 64)}
	done := make(chan error, 1)
	go func() {
		done <- run(rctx, []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:2,cpu:2", "--xla_cpu_flag=1"}, nil, out, logs)
	}()
	select {
	case line := <-out.ch:
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
	for len(logs.ch) > 0 {
		if strings.Contains(<-logs.ch, "unplaced -> placed") {
			placed++
		}
	}
	if placed != 2 {
		t.Errorf("%d slices logged as placed, want 2", placed)
	}
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestHelp: --help is a successful request for the usage.
func TestHelp(t *testing.T) {
	var usage strings.Builder
	if _, err := parse([]string{"--help"}, &usage); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("parse(--help) = %v, want flag.ErrHelp (exit 0)", err)
	}
	if !strings.Contains(usage.String(), "-num_elastic_instances") {
		t.Errorf("usage lacks the flags:\n%s", usage.String())
	}
}
