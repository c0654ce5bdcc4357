package pjrt_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
)

const defaultTestTimeout = 2 * time.Minute

// testPlugin describes a plugin the tests can load.
type testPlugin struct {
	name string // short name used in subtest names
	env  string // variable holding its path
	link string // fallback under the module root
}

var (
	cpuPlugin    = testPlugin{"xla_cpu", "PATHWAYS_PJRT_CPU_PLUGIN", ".plugins/cpu.so"}
	lammpsPlugin = testPlugin{"lammps_cpu", "PATHWAYS_PJRT_LAMMPS_PLUGIN", ".plugins/lammps_cpu.so"}
	cpuPlugins   = []testPlugin{cpuPlugin, lammpsPlugin}
)

// path returns the plugin's file, or skips (fails with PATHWAYS_REQUIRE_PLUGINS=1).
func (p testPlugin) path(t testing.TB) string {
	t.Helper()
	return testenv.Plugin{Name: p.name, Env: p.env, Link: p.link}.Path(t)
}

func (p testPlugin) load(t testing.TB) *pjrt.Plugin {
	t.Helper()
	path := p.path(t)
	plugin, err := pjrt.Load(path)
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return plugin
}

// client creates a client with n CPU devices and closes it at the end of the test.
func (p testPlugin) client(t testing.TB, n int) *pjrt.Client {
	t.Helper()
	plugin := p.load(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	c, err := plugin.NewClient(ctx, map[string]any{"cpu_device_count": int64(n)})
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Client.Close: %v", err)
		}
	})
	return c
}

func testContext(t testing.TB) context.Context { return testenv.Context(t, defaultTestTimeout) }

func mustCompile(t testing.TB, c *pjrt.Client, program string, opts pjrt.CompileOptions) *pjrt.Executable {
	t.Helper()
	x, err := c.Compile(testContext(t), []byte(program), "mlir", opts.Marshal())
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	t.Cleanup(func() { _ = x.Close() })
	return x
}

func runtimeGC() { runtime.GC() }
