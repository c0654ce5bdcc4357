package interop_test

import (
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
	"github.com/openpathways/pathways/worker"
)

// TestInteropCompileCache runs the same JAX script twice, each time against a
// new cluster (its worker started afresh) sharing one scratch location: the
// second run compiles nothing on the worker, its programs load from the
// compilation cache, and the results are the same.
func TestInteropCompileCache(t *testing.T) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	path := testenv.CPUPlugin.Path(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		scratch := "file://" + t.TempDir()
		var results []map[string]any
		var stats []worker.CompileCacheStats
		for run := range 2 {
			var l *localtest.Cluster
			b := interopBackend{name: "cluster_pjrt_cpu", newClient: func(t *testing.T) ifrt.Client {
				ctx := testenv.Context(t, testTimeout)
				var err error
				l, err = localtest.Start(ctx, local.Config{
					Slices: 1, DevicesPerSlice: 8, NoProxy: true, ScratchLocation: scratch,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
					NewBackend: func(int) (ifrt.Client, error) {
						c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: 8})
						if errors.Is(err, pjrt.ErrCgoUnavailable) {
							t.Skip("built without cgo")
						}
						return c, err
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { l.Close() })
				return l.Client
			}}
			s := startInteropServer(t, jax, b, nil)
			out, err := s.runScript(t, "jit_cache.py")
			if err != nil {
				t.Fatalf("run %d: %v", run, err)
			}
			results = append(results, map[string]any{"y": decode[any](t, out, "y"), "z": decode[any](t, out, "z")})
			stats = append(stats, l.Worker(0).CompileCacheStats())
		}
		if stats[0].Misses == 0 || stats[0].Hits != 0 {
			t.Errorf("first run: %+v; want only misses", stats[0])
		}
		if stats[1].Misses != 0 || stats[1].Hits != stats[0].Misses {
			t.Errorf("second run: %+v; want %d hits and no compile", stats[1], stats[0].Misses)
		}
		if diff := cmp.Diff(results[0], results[1]); diff != "" {
			t.Errorf("the runs differ (-first +second):\n%s", diff)
		}
	})
}
