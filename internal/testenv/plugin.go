package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Plugin is a PJRT plugin the tests load: from the variable Env, else from
// Link under the module root (scripts/setup_plugins.sh installs both).
type Plugin struct {
	Name string // short name, used in subtest names
	Env  string // the variable holding its path
	Link string // its file under the module root
}

// The CPU plugins: OpenXLA's, and the one built from jaxlib 0.11.2's XLA.
var (
	CPUPlugin    = Plugin{"xla_cpu", "PATHWAYS_PJRT_CPU_PLUGIN", ".plugins/cpu.so"}
	LammpsPlugin = Plugin{"lammps_cpu", "PATHWAYS_PJRT_LAMMPS_PLUGIN", ".plugins/lammps_cpu.so"}
)

// ForEachCPUPlugin runs f in a subtest for each CPU plugin, named after it.
func ForEachCPUPlugin(t *testing.T, f func(t *testing.T, p Plugin)) {
	for _, p := range []Plugin{CPUPlugin, LammpsPlugin} {
		t.Run(p.Name, func(t *testing.T) { f(t, p) })
	}
}

// Lookup returns the plugin's file and whether it is there.
func (p Plugin) Lookup() (string, bool) {
	path := os.Getenv(p.Env)
	if path == "" {
		path = filepath.Join(ModuleRoot(), p.Link)
	}
	_, err := os.Stat(path)
	return path, err == nil
}

// Path returns the plugin's file; when it is missing the test skips, or fails
// with PATHWAYS_REQUIRE_PLUGINS=1.
func (p Plugin) Path(t testing.TB) string {
	t.Helper()
	path, ok := p.Lookup()
	if !ok {
		Missing(t, RequirePluginsVar, "PJRT plugin "+p.Name+" not found at "+path+" (set "+p.Env+" or run scripts/setup_plugins.sh)")
	}
	return path
}
