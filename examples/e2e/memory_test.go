package e2e

import (
	"encoding/json"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestOutOfMemoryEndsTheOpNotTheWorker runs gocpu workers with a memory limit
// (GOMEMLIMIT=600MiB, the Go runtime's soft limit, which gocpu takes as its
// devices' memory): a JAX program keeping 200 MB arrays gets
// RESOURCE_EXHAUSTED for the one that does not fit, keeps those before it,
// and its session goes on with the worker alive.
func TestOutOfMemoryEndsTheOpNotTheWorker(t *testing.T) {
	skipShort(t)
	python := testenv.Python(t)
	t.Setenv("GOMEMLIMIT", "600MiB") // every process the cluster starts inherits it
	ctx := testenv.Context(t, testTimeout)
	c := startCluster(t, ctx, "gocpu")
	out, _ := c.runJAX(python, "out_of_memory.py", nil)
	errorSays(t, out, "refused", "RESOURCE_EXHAUSTED", "do not fit", "GOMEMLIMIT")
	var kept int
	if err := json.Unmarshal(out["kept"], &kept); err != nil || kept < 1 || kept > 3 {
		t.Errorf("kept = %s, want 1 to 3 arrays of 200 MB under a 600 MiB limit", out["kept"])
	}
	check := checker(t, out)
	check("first", "0.0")
	check("after", "2.0")
}
