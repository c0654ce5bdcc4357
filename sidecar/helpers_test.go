package sidecar_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/sidecar"
)

// sidecarPython is the interop environment's Python, which must have
// cloudpickle (colocated_python needs it on both sides).
func sidecarPython(t testing.TB) string {
	t.Helper()
	skipShort(t)
	return checkSidecarPython(t, testenv.Python(t))
}

// forEachJAX runs f in a subtest for each JAX environment of the interop
// matrix (testenv.ForEachJAX) with its Python, which runs both the JAX client
// and the sidecars: a sidecar unpickles what the client pickled, so it needs
// the client's JAX and cloudpickle.
func forEachJAX(t *testing.T, f func(t *testing.T, py string)) {
	t.Helper()
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, env testenv.JAX) {
		f(t, checkSidecarPython(t, env.Python))
	})
}

func skipShort(t testing.TB) {
	if testing.Short() {
		t.Skip("sidecar tests run real Python processes; skipped with -short")
	}
}

func checkSidecarPython(t testing.TB, py string) string {
	t.Helper()
	if out, err := exec.Command(py, "-c", "import cloudpickle, jax").CombinedOutput(); err != nil {
		testenv.Missing(t, testenv.RequireInteropVar, py+" lacks jax or cloudpickle ("+string(out)+"): run `make setup`")
	}
	return py
}

// script is the sidecar program in this repository.
func script() string {
	return filepath.Join(testenv.ModuleRoot(), "sidecar", "python", "pathways_sidecar.py")
}

func startSidecar(t *testing.T, py string, env ...string) *sidecar.Process {
	t.Helper()
	ctx := testenv.Context(t, 2*time.Minute)
	p, err := sidecar.Start(ctx, sidecar.Config{Command: []string{py, script()}, Env: env, RestartDelay: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func ctxT(t *testing.T) context.Context { return testenv.Context(t, 3*time.Minute) }
