// Package testenv finds the real parts that tests need — the Python interop
// environments, PJRT plugins — and decides whether their absence skips a test or
// fails it.
//
// A test that drives JAX runs its body once per JAX environment with
// ForEachJAX, in subtests named after the jaxlib version ("jaxlib-0.12.0.1"): the
// versions pinned under scripts/requirements, which `make setup` installs into
// .venv and .venv-jaxVERSION, and whatever $PATHWAYS_PYTHON has.
//
// A test that needs a part calls, say, Python(t): when the part is missing the test
// skips with a message saying what is missing and how to get it, unless the variable
// that requires it (PATHWAYS_REQUIRE_INTEROP=1, PATHWAYS_REQUIRE_PLUGINS=1; .ci/run sets
// both) is set, in which case it fails. Every lookup reads the environment at call
// time, so tests may use t.Setenv.
//
// LineWriter hands a test the lines a server it runs writes; Context gives a
// test's steps their deadline; CheckDeps keeps a package from linking what it
// must not (a server, a backend, cgo).
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// Variables read by this package.
const (
	PythonVar          = "PATHWAYS_PYTHON"          // the interop environment's python
	RequireInteropVar  = "PATHWAYS_REQUIRE_INTEROP" // "1": a missing Python fails
	RequirePluginsVar  = "PATHWAYS_REQUIRE_PLUGINS" // "1": a missing plugin fails
	installInstruction = "run `make setup` (scripts/setup_python.sh)"
)

// ModuleRoot returns the repository root (the folder holding go.mod).
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Missing skips t, or fails it when the variable requireVar is "1".
func Missing(t testing.TB, requireVar, what string) {
	t.Helper()
	if os.Getenv(requireVar) == "1" {
		t.Fatalf("%s (required because %s=1)", what, requireVar)
	}
	t.Skip(what)
}

// Python returns the path of the interop environment's python: $PATHWAYS_PYTHON,
// else .venv/bin/python at the module root.
func Python(t testing.TB) string {
	t.Helper()
	p := os.Getenv(PythonVar)
	if p == "" {
		p = filepath.Join(ModuleRoot(), ".venv", "bin", "python")
	}
	if _, err := exec.LookPath(p); err != nil {
		Missing(t, RequireInteropVar, "the Python interop environment is missing ("+PythonVar+" or .venv): "+installInstruction)
	}
	return p
}
