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

// testPlugin is a CPU plugin the tests load.
type testPlugin struct{ testenv.Plugin }

var (
	cpuPlugin    = testPlugin{testenv.CPUPlugin}
	lammpsPlugin = testPlugin{testenv.LammpsPlugin}
	cpuPlugins   = []testPlugin{cpuPlugin, lammpsPlugin}
)

// forEachClient runs f in a subtest for each CPU plugin, with a client of n
// devices on it (testPlugin.client).
func forEachClient(t *testing.T, n int, f func(t *testing.T, c *pjrtifrt.Client)) {
	testenv.ForEachCPUPlugin(t, func(t *testing.T, p testenv.Plugin) { f(t, testPlugin{p}.client(t, n)) })
}

// client returns a pjrtifrt client with n devices, closed when the test ends.
func (p testPlugin) client(t testing.TB, n int) *pjrtifrt.Client {
	t.Helper()
	path := p.Path(t)
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
