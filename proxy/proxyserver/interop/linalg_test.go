package interop_test

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestInteropLinalg runs jnp.linalg (QR, eigh, SVD, Cholesky, LU solve,
// pinv, det, lstsq, the orthogonal initializer) through the proxy and checks each
// factorization by its defining properties and against local CPU JAX. On the
// PJRT plugin the LAPACK calls run in the handlers pjrtifrt registers with
// it, the interpreter's. It runs with the newest jaxlib: how each jaxlib
// lowers jnp.linalg is TestCorpusUpToDate's (package internal/stablehlo).
func TestInteropLinalg(t *testing.T) {
	forEachInterop(t, backendsNamed(t, "cluster_gocpu", "pjrt_cpu"), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		if !newestJAX(jax) {
			t.Skip("runs with the newest jaxlib; TestCorpusUpToDate runs each jaxlib's linalg programs")
		}
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "linalg.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		errs := decode[map[string]float64](t, out, "errors")
		if len(errs) < 20 {
			t.Fatalf("linalg.py reported %d cases, want at least 20: %v", len(errs), errs)
		}
		t.Logf("max errors: %v", errs)
		for name, e := range errs {
			tol := 1e-4
			if strings.HasSuffix(name, "_f64") {
				tol = 1e-9
			}
			if !(e <= tol) {
				t.Errorf("%s: max error %g (tolerance %g)", name, e, tol)
			}
		}
		s.expectFreed(t, b)
	})
}
