package interop_test

import (
	"os/exec"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropFlaxOptax runs testdata/flax_optax.py, training as most JAX users
// write it: a flax.nnx language model whose parameters are sharded over a
// mesh of every device by their partitioning metadata, trained by Optax's
// AdamW with the model and optimizer donated each step, and a flax.linen CNN
// with BatchNorm and dropout trained data-parallel, then evaluated with
// shard_map. The proxy's results must match local CPU JAX's by value, dtype
// and sharding. It runs on the two-worker gocpu cluster, where the mesh spans
// both workers, and on a one-worker cluster on the PJRT CPU plugin (XLA
// compiles every program), with the newest jaxlib, whose environment has Flax
// and Optax.
func TestInteropFlaxOptax(t *testing.T) {
	forEachInterop(t, backendsNamed(t, "cluster_gocpu", "cluster_pjrt_cpu"), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		if !newestJAX(jax) {
			t.Skip("Flax and Optax are installed in the newest JAX environment only")
		}
		if err := exec.Command(jax.Python, "-c", "import flax, optax").Run(); err != nil {
			testenv.Missing(t, testenv.RequireInteropVar, "flax or optax is not in "+jax.Python+": run `make setup` (scripts/setup_python.sh)")
		}
		s := startInteropServer(t, jax, b, nil)
		// JAX's default 32-bit types, as Flax users run it.
		out, err := s.runScript(t, "flax_optax.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8", "INTEROP_X64=0")...)
		if err != nil {
			t.Fatal(err)
		}
		v := decode[map[string]string](t, out, "versions")
		t.Logf("flax %s, optax %s", v["flax"], v["optax"])
		cases := decode[map[string]any](t, out, "cases")
		if len(cases) < 8 {
			t.Errorf("the script compared %d results, want at least 8: %v", len(cases), cases)
		}
		for name, e := range cases {
			if f, ok := e.(float64); !ok || f > 1e-5 {
				t.Errorf("%s: %v (tolerance 1e-5)", name, e)
			}
		}
		s.expectFreed(t, b)
	})
}
