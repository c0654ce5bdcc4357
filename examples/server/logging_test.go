package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestLogFlags runs the resource manager with --log_format=json: every line
// it writes is one JSON object, and its own carry component "rm". An unknown
// format is refused.
func TestLogFlags(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rmCtx, stop := context.WithCancel(ctx)
	out, logs := testenv.NewLineWriter(4), &testenv.SyncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(rmCtx, []string{"--node_type=resource_manager", "--server_port=0", "--instance_type=cpu:2", "--log_format=json", "--log_level=debug"}, envOf(), out, logs)
	}()
	select {
	case <-out.C:
	case err := <-done:
		t.Fatalf("run: %v", err)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("RM after cancel: %v", err)
	}
	rmLines := 0
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("--log_format=json wrote a line that is not JSON: %q", line)
		}
		if r["component"] == "rm" {
			rmLines++
		}
	}
	if rmLines == 0 {
		t.Errorf("no line with component rm in:\n%s", logs.String())
	}

	err := run(ctx, []string{"--node_type=resource_manager", "--server_port=0", "--instance_type=cpu:2", "--log_format=xml"}, envOf(), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--log_format") {
		t.Errorf("--log_format=xml: %v, want an error naming the flag", err)
	}
}
