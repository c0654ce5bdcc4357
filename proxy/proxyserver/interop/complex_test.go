package interop_test

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// complexDTypes are the element types complex_ops.py's cases must give, as
// local CPU JAX gives them.
var complexDTypes = map[string]string{
	"astype_c64": "complex64", "fft": "complex64", "abs": "float32", "angle": "float32", "real": "float32",
	"imag": "float32", "conj": "complex64", "matmul_c64": "complex64",
	"astype_c128": "complex128", "matmul_c128": "complex128", "fft_c128": "complex128",
	"fft_odd": "complex64", "ifft": "complex64", "rfft": "complex64", "irfft": "float32", "fft2": "complex64",
	"fftn": "complex64", "rfft2_irfft2": "float32", "spectral_conv": "float32", "arith_c64": "complex64",
	"math_c64": "complex64", "sum_c64": "complex64",
}

// TestInteropComplex runs complex_ops.py (complex64 and complex128 transfers,
// astype, the FFTs, abs/angle/real/imag/conj, complex arithmetic and math,
// complex matmuls) on the PJRT CPU plugin and on gocpu's interpreter against
// local CPU JAX.
func TestInteropComplex(t *testing.T) {
	// Each kind of backend once.
	forEachInterop(t, backendsNamed(t, "gocpu", "pjrt_cpu"), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "complex_ops.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		for dt, ok := range decode[map[string]bool](t, out, "roundtrip") {
			if !ok {
				t.Errorf("device_put/device_get of %s is not bit-exact", dt)
			}
		}
		if raw, ok := out["refused"]; ok {
			t.Fatalf("a complex case failed: %s", raw)
		}
		errs := decode[map[string]float64](t, out, "errors")
		dtypes := decode[map[string][2]string](t, out, "dtypes")
		if len(errs) != len(complexDTypes) {
			t.Errorf("the script ran %d cases, want %d: %v", len(errs), len(complexDTypes), errs)
		}
		t.Logf("max errors: %v", errs)
		for name, want := range complexDTypes {
			if d := dtypes[name]; d[0] != want || d[1] != want {
				t.Errorf("%s: dtype %q through the proxy, %q on local CPU, want %q", name, d[0], d[1], want)
			}
			tol := 1e-5
			if strings.HasSuffix(name, "_c128") {
				tol = 1e-12
			}
			if e, ok := errs[name]; !ok || !(e <= tol) {
				t.Errorf("%s differs from local CPU JAX by %g (tolerance %g, relative to max(1, |value|))", name, e, tol)
			}
		}
		s.expectFreed(t, b)
	})
}
