package local_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// runJAX runs testdata/<script> with the JAX environment's python against the
// proxy server at addr and returns the JSON objects it printed, merged.
func runJAX(t *testing.T, python, addr, script string, env ...string) map[string]json.RawMessage {
	t.Helper()
	ctx := testenv.Context(t, 3*time.Minute)
	dir, _ := filepath.Abs("testdata")
	cmd := exec.CommandContext(ctx, python, filepath.Join(dir, script))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"JAX_PLATFORMS=proxy",
		"JAX_BACKEND_TARGET=grpc://"+addr,
		"IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true",
		"PATHWAYS_PROXY_CONNECTION_TIMEOUT_SECS=30",
		"TF_CPP_MIN_LOG_LEVEL=1",
	)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), stderr.String())
	}
	out := map[string]json.RawMessage{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(strings.TrimSpace(line)), &obj) == nil {
			for k, v := range obj {
				out[k] = v
			}
		}
	}
	return out
}

// jsonRecords returns the JSON log records among logs' lines.
func jsonRecords(logs string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(logs, "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
