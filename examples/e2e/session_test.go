package e2e

import (
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestFailedSessionEndsNotServer runs the proxy server with the default
// --num_elastic_instances=0 on gocpu workers: killing a worker ends the JAX
// session that was running, and once the worker is back a new JAX process runs
// against the same proxy server.
func TestFailedSessionEndsNotServer(t *testing.T) {
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testFailedSessionEndsNotServer(t, jax.Python) })
}

func testFailedSessionEndsNotServer(t *testing.T, python string) {
	ctx := testenv.Context(t, testTimeout)
	c := startCluster(t, ctx, "gocpu")

	out, _ := c.runJAX(python, "session_failure.py", func(step string) {
		if step == "killed" {
			c.kill9(1)
		}
	})
	check := checker(t, out)
	check("before", "true")
	errorSays(t, out, "after_loss", "UNAVAILABLE", "1 slices lost", "--num_elastic_instances")

	c.startWorker(1)
	out, _ = c.runJAX(python, "new_session.py", nil)
	check = checker(t, out)
	check("devices", "8")
	check("slices", "[0, 1]")
	check("round_trip", "true")
}
