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
}

// TestInteropComplex runs complex_ops.py (complex64 and complex128 transfers,
// astype, fft, abs/angle/real/imag/conj, complex matmuls) on the PJRT CPU
// plugin against local CPU JAX. gocpu's interpreter does not run complex
// values: there the transfers pass and the first complex op fails with
// UNIMPLEMENTED naming the complex type.
func TestInteropComplex(t *testing.T) {
	forEachInterop(t, func(t *testing.T, jax testenv.JAX, b interopBackend) {
		if b.name != "pjrt_cpu" && b.name != "gocpu" {
			t.Skipf("complex values run on pjrt_cpu; gocpu checks that its interpreter refuses them")
		}
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
		if b.name == "gocpu" {
			r := decode[struct{ Case, Type, Message string }](t, out, "refused")
			if r.Case != "astype_c64" || r.Type != "JaxRuntimeError" || !strings.HasPrefix(r.Message, "UNIMPLEMENTED") ||
				!strings.Contains(r.Message, "complex<f32>") {
				t.Errorf("gocpu refused %+v, want the first case (astype_c64) to raise JaxRuntimeError(UNIMPLEMENTED: ... complex<f32> ...)", r)
			}
			t.Logf("gocpu refuses complex values: %s", r.Message)
			s.expectFreed(t, b)
			return
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
