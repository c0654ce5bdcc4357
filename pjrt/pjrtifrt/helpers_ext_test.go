package pjrtifrt_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

const defaultTestTimeout = 2 * time.Minute

// testPlugin is a PJRT plugin the tests load: from the variable env, else from
// link under the module root (scripts/setup_plugins.sh installs both).
type testPlugin struct{ name, env, link string }

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

// client returns a pjrtifrt client with n devices, closed when the test ends.
func (p testPlugin) client(t testing.TB, n int) *pjrtifrt.Client {
	t.Helper()
	path := p.path(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: n})
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if err != nil {
		t.Fatalf("pjrtifrt.New(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

func testContext(t testing.TB) context.Context { return testenv.Context(t, defaultTestTimeout) }

func put(t testing.TB, c ifrt.Client, data []byte, d ifrt.DType, shape ifrt.Shape, s ifrt.Sharding) ifrt.Array {
	t.Helper()
	a, err := c.MakeArrayFromHostBuffer(testContext(t), data, ifrt.ArraySpec{DType: d, Shape: shape, Sharding: s}, nil)
	if err != nil {
		t.Fatalf("MakeArrayFromHostBuffer(%v%v, %v): %v", d, shape, s, err)
	}
	return a
}

func get(t testing.TB, a ifrt.Array) []byte {
	t.Helper()
	n, err := a.Shape().ByteSize(a.DType())
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, n)
	if err := a.CopyToHostBuffer(testContext(t), out, nil); err != nil {
		t.Fatalf("CopyToHostBuffer(%v%v): %v", a.DType(), a.Shape(), err)
	}
	return out
}

// waitLive waits for the PJRT live-object counters to return to want.
func waitLive(t testing.TB, want pjrt.LiveObjects) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for pjrt.Live() != want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := pjrt.Live(); got != want {
		t.Errorf("PJRT live objects = %+v, want %+v", got, want)
	}
}
