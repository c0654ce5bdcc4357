package interop_test

import (
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
)

// benchVar runs TestDataplaneFigures (scripts/bench.sh sets it): the figures
// take a minute and say nothing a test could assert.
const benchVar = "PATHWAYS_BENCH"

// TestDataplaneFigures prints the tiny-step and 64 MiB transfer figures of
// testdata/bench_dataplane.py through a proxy straight over the PJRT CPU
// plugin and through a one-worker cluster on it, as ratios against local CPU
// JAX and np.copy measured in the same process; uploads stream over gRPC or go
// through the shared directory (HostBufferReadFromDisk).
func TestDataplaneFigures(t *testing.T) {
	if os.Getenv(benchVar) != "1" {
		t.Skip("a benchmark: set " + benchVar + "=1 (scripts/bench.sh does)")
	}
	python := testenv.Python(t)
	for _, run := range []struct{ backend, path string }{
		{"pjrt_cpu", "grpc"}, {"pjrt_cpu", "shared directory"},
		{"cluster_pjrt_cpu", "grpc"}, {"cluster_pjrt_cpu", "shared directory"},
	} {
		name := run.backend + "/" + run.path
		t.Run(name, func(t *testing.T) {
			var mod func(*proxyserver.Config)
			env := []string{"JAX_PLATFORMS=proxy,cpu"}
			if run.path != "grpc" {
				dir := memoryBackedTempDir(t)
				mod = func(c *proxyserver.Config) { c.LargeTransferDirectory = dir }
				env = append(env, largeTransferEnv(dir, 1<<20)...)
			}
			s := startBenchServer(t, interopBackendNamed(t, run.backend), python, mod)
			out, err := s.runScript(t, "bench_dataplane.py", env...)
			if err != nil {
				t.Fatal(err)
			}
			f := func(k string) float64 { return decode[float64](t, out, k) }
			t.Logf("%s: tiny step %.3f ms (local CPU %.3f ms, added %.3f ms); 64 MiB device_put %.2f GB/s = %.2fx np.copy, device_get %.2f GB/s = %.2fx np.copy (np.copy %.2f GB/s)",
				name, f("proxy_step_ms"), f("local_step_ms"), f("added_step_ms"),
				f("put_gbps"), f("put_vs_copy"), f("get_gbps"), f("get_vs_copy"), f("copy_gbps"))
			t.Logf("%s: per 64 MiB: np.copy %.0f ms CPU; device_put %.0f ms wall, %.0f ms client CPU, %.0f ms server CPU; device_get %.0f ms wall, %.0f ms client CPU, %.0f ms server CPU",
				name, f("copy_cpu_ms"), f("put_ms"), f("put_client_cpu_ms"), f("put_server_cpu_ms"), f("get_ms"), f("get_client_cpu_ms"), f("get_server_cpu_ms"))
		})
	}
}

// memoryBackedTempDir is a temporary directory in /dev/shm where there is
// one, as the memory-backed volume of a deployment would be.
func memoryBackedTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "pathways-bench-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startBenchServer is startInteropServer without the recording and the debug
// log, which would weigh on every request; mod may change the Config.
func startBenchServer(t *testing.T, b interopBackend, python string, mod func(*proxyserver.Config)) *interopServer {
	t.Helper()
	cfg := proxyserver.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	return serveInterop(t, python, b.newClient(t), &syncBuffer{}, cfg)
}
