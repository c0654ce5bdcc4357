package e2e

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/profiling/profiletest"
	"github.com/openpathways/pathways/internal/testenv"
	_ "github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
)

// TestProfileCluster runs jax.profiler.start_trace/stop_trace through a
// proxy_server process over two worker processes (server binaries on gocpu),
// the trace going to a gs:// location on an emulator: the file has one
// process for the proxy server and one for each worker, and each worker's
// process holds its own executions of the jit, which only that worker's
// recorder (in another process) can have recorded.
func TestProfileCluster(t *testing.T) {
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testProfileCluster(t, jax.Python) })
}

func testProfileCluster(t *testing.T, python string) {
	ctx := testenv.Context(t, testTimeout)
	gcstest.Start(t, "profiles") // STORAGE_EMULATOR_HOST reaches the processes
	const location = "gs://profiles/e2e"
	t.Setenv("PROFILE_LOCATION", location)
	c := startCluster(t, ctx, "gocpu")
	out, stderr := c.runJAX(python, "profile_cluster.py", func(string) {})
	checker(t, out)("results", `{"slice0": true, "slice1": true, "both": true}`)
	// pathwaysutils replaces the server's error with a message of its own;
	// jaxlib logs the server's.
	if _, ok := out["negative_hosts"]; !ok || !strings.Contains(stderr, "INVALID_ARGUMENT: Bad PluginProgram: profileRequest: maxNumHosts") {
		t.Errorf("a trace with max_num_hosts=-1: %s; want INVALID_ARGUMENT for maxNumHosts in jaxlib's log", out["negative_hosts"])
	}

	name, trace := profiletest.Get(t, ctx, location)
	processes := trace.Processes()
	// What each process did: backend executions of the jit, gang launches.
	did := map[string]map[string]bool{}
	for _, e := range trace.TraceEvents {
		if e.Phase != "X" {
			continue
		}
		p := processes[e.PID]
		if p == "" {
			t.Errorf("event %s of process %d, which has no name", e.Name, e.PID)
		}
		if did[p] == nil {
			did[p] = map[string]bool{}
		}
		if e.Name == "backend.Execute" && e.Args["executable"] == "jit_scaled" {
			did[p]["execute"] = true
		}
		if e.Name == "Gang/Launch" {
			did[p]["gang"] = true
		}
	}
	t.Logf("%s: %d events; processes %v; %v", name, len(trace.TraceEvents), processes, did)
	if len(processes) != 3 || !strings.HasPrefix(processes[1], "proxy-server") ||
		!strings.HasPrefix(processes[2], "worker slice 0 host 0") || !strings.HasPrefix(processes[3], "worker slice 1 host 0") {
		t.Errorf("processes %v, want the proxy server's and the two workers'", processes)
	}
	for pid := 2; pid <= 3; pid++ {
		if p := processes[pid]; !did[p]["execute"] || !did[p]["gang"] {
			t.Errorf("%s: %v, want the jit's execution on one slice and the gang's launch", p, did[p])
		}
	}
}
