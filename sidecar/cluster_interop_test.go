package sidecar_test

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/sidecar"
)

// TestInteropColocatedPythonCluster runs colocated_python from stock JAX
// through the proxy server of a two-slice cluster whose workers each run a
// sidecar: a jit over both workers' accelerators runs as without sidecars, one
// CPU device per host, a function run once per host on that
// host's shard, a counter per host, the user's exception, and a sidecar killed
// in the middle of a call (DATA_LOSS; the next call works).
func TestInteropColocatedPythonCluster(t *testing.T) {
	forEachJAX(t, testInteropColocatedPythonCluster)
}

func testInteropColocatedPythonCluster(t *testing.T, py string) {
	mark := filepath.Join(t.TempDir(), "started")
	cl, procs := startColocatedCluster(t, py, "SIDECAR_TEST_MARK="+mark)

	killed := killOnMark(t, mark, procs[1].PID)
	out := runJAX(t, py, cl.ProxyAddress, "colocated_cluster.py")

	if got := field[int](t, out, "devices"); got != 4 {
		t.Errorf("jax.devices() has %d devices, want 4 accelerators", got)
	}
	if diff := cmp.Diff([]float64{0, 2, 4, 6, 8, 10, 12, 14}, field[[]float64](t, out, "gang")); diff != "" {
		t.Errorf("a jit over both workers' accelerators (-want +got):\n%s", diff)
	}
	if got := field[int](t, out, "hosts"); got != 2 {
		t.Errorf("colocated_cpu_devices found %d CPU devices (%s), want one per host", got, out["cpu_ids"])
	}
	if diff := cmp.Diff([][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, field[[][]float64](t, out, "add_one")); diff != "" {
		t.Errorf("add_one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"host-0", "host-1"}, field[[]string](t, out, "names")); diff != "" {
		t.Errorf("the hosts each shard ran on (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]float64{{1, 1}, {2, 2}, {3, 3}}, field[[][]float64](t, out, "counter")); diff != "" {
		t.Errorf("the counters of the two hosts (-want +got):\n%s", diff)
	}
	checkRaisedAndKilled(t, out, "(1, 4)", killed) // host-1's sidecar
	if diff := cmp.Diff([][]float64{{1, 2, 3, 4}, {5, 6, 7, 8}}, field[[][]float64](t, out, "after_restart")); diff != "" {
		t.Errorf("after the restart (-want +got):\n%s", diff)
	}
	t.Logf("CPU devices: %s; raised: %s; killed: %s", out["cpu_ids"], out["raised"], out["killed"])
}

// startColocatedCluster starts a two-slice cluster, two gocpu devices per
// slice, whose workers each run a sidecar (PATHWAYS_HOST_NAME=host-N), with
// a proxy server that gives each JAX session a cluster client of its own.
func startColocatedCluster(t *testing.T, py string, env ...string) (*local.Cluster, []*sidecar.Process) {
	t.Helper()
	procs := make([]*sidecar.Process, 2)
	for i := range procs {
		procs[i] = startSidecar(t, py, append([]string{fmt.Sprintf("PATHWAYS_HOST_NAME=host-%d", i)}, env...)...)
	}
	ctx := testenv.Context(t, 2*time.Minute)
	cl, err := local.Start(ctx, local.Config{
		Slices: 2, DevicesPerSlice: 2, Logger: slog.New(slog.DiscardHandler),
		NewBackend: func(i int) (ifrt.Client, error) {
			accel, err := gocpu.New(gocpu.Config{Devices: 2})
			if err != nil {
				return nil, err
			}
			return sidecar.NewClient(accel, sidecar.ClientConfig{Process: procs[i]})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl, procs
}
