package testenv

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// JAX is one Python environment with a stock jax and jaxlib.
type JAX struct {
	Jaxlib string // the jaxlib version, e.g. "0.12.0.1"
	Python string // the environment's interpreter
}

// Name is the subtest name ForEachJAX gives the environment: "jaxlib-0.12.0.1".
func (j JAX) Name() string { return "jaxlib-" + j.Jaxlib }

// requirementFile matches scripts/requirements/jaxVERSION-pyMINOR.txt, which
// scripts/setup_python.sh installs into .venv (0.10.2) or .venv-jaxVERSION.
var requirementFile = regexp.MustCompile(`^jax([0-9][0-9.]*[0-9])-py[0-9.]+\.txt$`)

// PinnedJaxlibs returns the jaxlib versions `make setup` installs, oldest first:
// one for each version named by a file in scripts/requirements.
func PinnedJaxlibs() []string {
	entries, _ := os.ReadDir(filepath.Join(ModuleRoot(), "scripts", "requirements"))
	var vs []string
	for _, e := range entries {
		if m := requirementFile.FindStringSubmatch(e.Name()); m != nil && !slices.Contains(vs, m[1]) {
			vs = append(vs, m[1])
		}
	}
	slices.SortFunc(vs, compareVersions)
	return vs
}

// JAXEnvs returns the JAX environments found, oldest jaxlib first: that of
// $PATHWAYS_PYTHON (else .venv), then every .venv-jax*/ at the module root. An
// environment with the jaxlib version of one found before it is left out, so
// PATHWAYS_PYTHON stands in for the environment of its version.
func JAXEnvs() []JAX {
	pythons := []string{os.Getenv(PythonVar), filepath.Join(ModuleRoot(), ".venv", "bin", "python")}
	more, _ := filepath.Glob(filepath.Join(ModuleRoot(), ".venv-jax*", "bin", "python"))
	pythons = append(pythons, more...)
	var envs []JAX
	for _, p := range pythons {
		if p == "" {
			continue
		}
		v := jaxlibVersion(p)
		if v == "" || slices.ContainsFunc(envs, func(e JAX) bool { return e.Jaxlib == v }) {
			continue
		}
		envs = append(envs, JAX{Jaxlib: v, Python: p})
	}
	slices.SortFunc(envs, func(a, b JAX) int { return compareVersions(a.Jaxlib, b.Jaxlib) })
	return envs
}

// ForEachJAX runs f in a subtest named after each JAX environment (see
// JAX.Name): every pinned jaxlib (PinnedJaxlibs) and any other environment
// JAXEnvs finds. A pinned version with no environment skips its subtest, or
// fails it when PATHWAYS_REQUIRE_INTEROP=1.
func ForEachJAX(t *testing.T, f func(t *testing.T, env JAX)) {
	t.Helper()
	found := JAXEnvs()
	var all []JAX
	for _, v := range PinnedJaxlibs() {
		all = append(all, JAX{Jaxlib: v})
	}
	for _, e := range found {
		if i := slices.IndexFunc(all, func(p JAX) bool { return p.Jaxlib == e.Jaxlib }); i >= 0 {
			all[i] = e
		} else {
			all = append(all, e)
		}
	}
	slices.SortFunc(all, func(a, b JAX) int { return compareVersions(a.Jaxlib, b.Jaxlib) })
	if len(all) == 0 {
		Missing(t, RequireInteropVar, "no JAX environment: "+installInstruction)
	}
	for _, env := range all {
		t.Run(env.Name(), func(t *testing.T) {
			if env.Python == "" {
				Missing(t, RequireInteropVar, "no environment with jaxlib "+env.Jaxlib+
					" (.venv-jax"+env.Jaxlib+"; newer jaxlibs need Python >= 3.12): "+installInstruction)
			}
			f(t, env)
		})
	}
}

var jaxlibVersions sync.Map // python path -> version ("" if none)

// jaxlibVersion asks python for its jaxlib version; "" when it has none or
// does not run.
func jaxlibVersion(python string) string {
	if v, ok := jaxlibVersions.Load(python); ok {
		return v.(string)
	}
	v := ""
	if _, err := exec.LookPath(python); err == nil {
		out, err := exec.Command(python, "-c", "import importlib.metadata as m; print(m.version('jaxlib'))").Output()
		if err == nil {
			v = strings.TrimSpace(string(out))
		}
	}
	jaxlibVersions.Store(python, v)
	return v
}

// compareVersions orders dotted version numbers: 0.9 < 0.10.2 < 0.12.0.1.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if c := cmp.Compare(len(as[i]), len(bs[i])); c != 0 {
			return c
		}
		if c := strings.Compare(as[i], bs[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(as), len(bs))
}
