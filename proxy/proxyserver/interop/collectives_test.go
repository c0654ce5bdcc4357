package interop_test

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
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out := checkShardMapPrograms(t, s)
		t.Logf("result shardings: %s", out["shardings"])
		s.expectFreed(t, b)
	})
}
