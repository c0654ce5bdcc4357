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

// testPlugin is a CPU plugin the tests load.
type testPlugin struct{ testenv.Plugin }

var (
	cpuPlugin    = testPlugin{testenv.CPUPlugin}
	lammpsPlugin = testPlugin{testenv.LammpsPlugin}
	cpuPlugins   = []testPlugin{cpuPlugin, lammpsPlugin}
)

// forEachClient runs f in a subtest for each CPU plugin, with a client of n
// devices on it (testPlugin.client).
func forEachClient(t *testing.T, n int, f func(t *testing.T, c *pjrt.Client)) {
	testenv.ForEachCPUPlugin(t, func(t *testing.T, p testenv.Plugin) { f(t, testPlugin{p}.client(t, n)) })
}

func (p testPlugin) load(t testing.TB) *pjrt.Plugin {
	t.Helper()
	path := p.Path(t)
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
