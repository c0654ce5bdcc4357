package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestLogFlags: --log_format=json writes one JSON object a line, with the
// cluster client's lines under their component; --log_level=warn leaves out
// the Info lines; an unknown format is refused.
func TestLogFlags(t *testing.T) {
	ctx := testenv.Context(t, 30*time.Second)
	l := startCluster(t, ctx, 1)
	args := []string{"--server_port=0", "--resource_manager_address=" + l.RMAddress, "--virtual_slices=cpu:4"} // fails once connected

	var stderr bytes.Buffer
	if err := run(ctx, append(args, "--log_format=json", "--log_level=debug"), nil, new(bytes.Buffer), &stderr); err == nil {
		t.Fatal("run with a virtual slice of another type succeeded")
	}
	components := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("--log_format=json wrote a line that is not JSON: %q", line)
		}
		if c, ok := r["component"].(string); ok {
			components[c] = true
		}
	}
	if !components["cluster-client"] {
		t.Errorf("components logged: %v, want cluster-client among them", components)
	}

	stderr.Reset()
	if err := run(ctx, append(args, "--log_level=warn"), nil, new(bytes.Buffer), &stderr); err == nil {
		t.Fatal("run with a virtual slice of another type succeeded")
	}
	if strings.Contains(stderr.String(), "level=INFO") {
		t.Errorf("--log_level=warn wrote Info lines:\n%s", stderr.String())
	}

	err := run(ctx, append(args, "--log_format=xml"), nil, new(bytes.Buffer), new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "--log_format") {
		t.Errorf("--log_format=xml: %v, want an error naming the flag", err)
	}
}
