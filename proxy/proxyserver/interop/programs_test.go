package interop_test

import (
	"strconv"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropPrograms runs stock JAX programs on every backend that compiles
// the bytecode JAX sends and compares them with local CPU JAX: jit, grad,
// lax.scan, fori_loop, jax.random, argsort, cumsum, donation and a 30-step
// data-parallel MLP. On a cluster the MLP runs on one worker's devices and
// over all devices, a program across workers (a gang).
func TestInteropPrograms(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		runs := []int{0} // all devices
		if b.workerDevices > 0 {
			runs = []int{b.workerDevices, 0}
		}
		for _, devices := range runs {
			env := jitEnv
			if devices > 0 {
				env = append(append([]string(nil), jitEnv...), "PATHWAYS_DP_DEVICES="+strconv.Itoa(devices))
			}
			out, err := s.runScript(t, "jax_programs.py", env...)
			if err != nil {
				t.Fatal(err)
			}
			for name, e := range decode[map[string]float64](t, out, "errors") {
				if e > 1e-5 {
					t.Errorf("%s differs from local CPU JAX by %g", name, e)
				}
			}
			if !decode[bool](t, out, "donated_deleted") || decode[float64](t, out, "donated_result") != 7 {
				t.Errorf("donation: deleted=%s result=%s, want true and 7", out["donated_deleted"], out["donated_result"])
			}
			r := checkDataParallel(t, out, devices)
			t.Logf("differences from local CPU JAX: %s; data-parallel MLP over %d devices: params %g, losses %g",
				out["errors"], r.Devices, r.ParamErr, r.LossErr)
		}
		s.expectFreed(t, b)
	})
}
