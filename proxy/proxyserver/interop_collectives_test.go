package proxyserver_test

import (
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropShardMap runs stock JAX's shard_map with collectives (psum,
// pmax, all_gather, ppermute, psum_scatter, all_to_all, axis_index) over a
// mesh of all 8 devices and a 2 x 4 one (testdata/shard_map_programs.py):
// results must match numpy and local CPU JAX, and every device must hold
// its block of each result as the result's sharding says. On cluster_gocpu
// the meshes span both workers: the programs run as gangs and their
// collectives cross workers.
func TestInteropShardMap(t *testing.T) {
	forEachInterop(t, func(t *testing.T, jax testenv.JAX, b interopBackend) {
		if !b.compilesBytecode {
			t.Skipf("backend %s does not compile the MLIR bytecode JAX sends", b.name)
		}
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "shard_map_programs.py", append(jitEnv, "XLA_FLAGS=--xla_force_host_platform_device_count=8")...)
		if err != nil {
			t.Fatal(err)
		}
		numpyErr := decode[map[string]float64](t, out, "numpy_err")
		cpuErr := decode[map[string]float64](t, out, "cpu_err")
		shardsOK := decode[map[string]bool](t, out, "shards_ok")
		if len(numpyErr) < 12 {
			t.Fatalf("the script checked %d programs, want 12: %s", len(numpyErr), out["numpy_err"])
		}
		for name, e := range numpyErr {
			if e > 1e-5 || cpuErr[name] > 1e-5 {
				t.Errorf("%s differs from numpy by %g and from local CPU JAX by %g", name, e, cpuErr[name])
			}
			if !shardsOK[name] {
				t.Errorf("%s: a device does not hold its block of the result", name)
			}
		}
		t.Logf("result shardings: %s", out["shardings"])
		s.expectFreed(t, b)
	})
}
