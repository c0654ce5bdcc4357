package local_test

import (
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/internal/profiling/profiletest"
	"github.com/openpathways/pathways/internal/testenv"
	_ "github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
)

// TestJAXProfile takes a trace with jax.profiler.start_trace/stop_trace
// through the proxy server (pathwaysutils' profileRequest) to a gs://
// location, and finds in the trace file the jit's execution on the proxy
// server and on the worker.
func TestJAXProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real JAX process; skipped with -short")
	}
	python := testenv.Python(t)
	emulator := gcstest.Start(t, "profiles")
	ctx := testenv.Context(t, 2*time.Minute)
	c, err := local.Start(ctx, local.Config{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	const location = "gs://profiles/run1"
	out := runJAX(t, python, c.ProxyAddress, "profile.py", "PROFILE_LOCATION="+location, "STORAGE_EMULATOR_HOST="+emulator)
	if !strings.HasPrefix(string(out["result"]), "[1.0, 4.0,") {
		t.Fatalf("the jit printed %s", out["result"])
	}

	name, trace := profiletest.Get(t, ctx, location)
	t.Logf("%s: %d events", name, len(trace.TraceEvents))
	processes := trace.Processes()
	executed := map[string]bool{}
	for _, e := range trace.TraceEvents {
		if e.Phase == "X" && e.Name == "backend.Execute" && e.Args["executable"] == "jit_scaled" && e.Dur > 0 {
			executed[strings.Fields(processes[e.PID])[0]] = true
		}
	}
	if !executed["proxy-server"] || !executed["worker"] {
		t.Errorf("executions of jit_scaled in the trace, by server: %v; want the proxy server's and the worker's; processes %v", executed, processes)
	}
}
