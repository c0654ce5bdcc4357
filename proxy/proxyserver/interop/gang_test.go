package interop_test

import (
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// gangBackend is a cluster whose 8 gocpu devices are spread over hosts of
// slices, so that every program over all of them is a gang. Its workers
// exchange collectives' data over their connections, as workers of separate
// hosts do, unless sharedMemory (workers of one host).
func gangBackend(slices, hosts int, sharedMemory bool) interopBackend {
	name := fmt.Sprintf("cluster_%dslices_%dhosts", slices, hosts)
	if !sharedMemory {
		name += "_connections"
	}
	return interopBackend{
		name: name,
		newClient: func(t *testing.T) ifrt.Client {
			if !sharedMemory {
				t.Setenv("PATHWAYS_PEER_SHARED_MEMORY", "off")
			}
			ctx := testenv.Context(t, testTimeout)
			l, err := local.Start(ctx, local.Config{Slices: slices, HostsPerSlice: hosts, DevicesPerSlice: 8 / (slices * hosts),
				NoProxy: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatalf("local.Start: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			return l.Client
		},
	}
}

// TestInteropGang runs stock JAX's shard_map collectives and a 30-step
// data-parallel MLP over all 8 devices of a slice of 2 hosts (cpu:2hx4), of
// 2 slices of 2 hosts (cpu:2hx2, exchanging over connections) and of 2 slices
// on the PJRT CPU plugin: every program is one program across the workers,
// and the results match numpy and local CPU JAX. Older jaxlibs run on the
// 2 slices of 2 hosts only (see forEachInterop).
func TestInteropGang(t *testing.T) {
	backends := []interopBackend{gangBackend(2, 2, false), gangBackend(1, 2, true), pjrtGangBackend()}
	forEachInterop(t, backends, func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		checkShardMapPrograms(t, s)
		out, err := s.runScript(t, "jax_programs.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		if r := checkDataParallel(t, out, 0); r.Devices != 8 {
			t.Errorf("the data-parallel MLP ran over %d devices, want 8", r.Devices)
		}
	})
}
