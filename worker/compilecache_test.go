package worker

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
	"github.com/openpathways/pathways/storage"
)

const mulAdd = `module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

func cpuBackend(t *testing.T) *pjrtifrt.Client {
	t.Helper()
	path := testenv.CPUPlugin.Path(t)
	c, err := pjrtifrt.New(context.Background(), pjrtifrt.Config{PluginPath: path, Devices: 1})
	if errors.Is(err, pjrt.ErrCgoUnavailable) {
		t.Skip("built without cgo")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCompileCache compiles a program through a cache, then loads it through
// a second cache over a fresh backend (a restarted worker) without compiling;
// corrupt and foreign entries are ignored with a warning.
func TestCompileCache(t *testing.T) {
	ctx := context.Background()
	loc, err := storage.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	prog := &ifrt.MLIRProgram{Module: []byte(mulAdd)}
	compile := func(c *compileCache) {
		t.Helper()
		exe, err := c.Compile(ctx, prog, nil)
		if err != nil {
			t.Fatal(err)
		}
		exe.Delete()
	}
	b1 := cpuBackend(t)
	first := newCompileCache(b1, b1, loc, log)
	compile(first)
	if got := first.stats(); got != (CompileCacheStats{Misses: 1}) {
		t.Fatalf("first compile: %+v, want one miss", got)
	}
	names, _ := loc.List(ctx, "")
	if len(names) != 1 {
		t.Fatalf("the cache holds %v, want one entry", names)
	}
	b2 := cpuBackend(t)
	restarted := newCompileCache(b2, b2, loc, log)
	compile(restarted)
	if got := restarted.stats(); got != (CompileCacheStats{Hits: 1}) {
		t.Fatalf("after a restart: %+v, want one hit", got)
	}
	if !strings.Contains(logs.String(), "compilation cache hit") {
		t.Errorf("no hit in the log:\n%s", logs.String())
	}
	// Other options are another entry.
	other := *prog
	other.Module = []byte(strings.Replace(mulAdd, "multiply", "add", 1))
	if restarted.key(&other, nil) == restarted.key(prog, nil) || restarted.key(prog, &ifrt.CompileOptions{XLA: []byte{8, 1}}) == restarted.key(prog, nil) {
		t.Error("different programs or options share a key")
	}
	entry, _ := loc.Get(ctx, names[0])
	// A good entry of another program, stored under this program's key.
	exe, err := restarted.Compile(ctx, &other, nil)
	if err != nil {
		t.Fatal(err)
	}
	exe.Delete()
	foreign, err := loc.Get(ctx, restarted.key(&other, nil))
	if err != nil {
		t.Fatal(err)
	}
	for what, bad := range map[string][]byte{
		"corrupt": append(entry[:len(entry)-len(entry)/3:len(entry)-len(entry)/3], 0xff),
		"foreign": foreign,
	} {
		logs.Reset()
		if err := loc.Put(ctx, names[0], bad); err != nil {
			t.Fatal(err)
		}
		c := newCompileCache(b2, b2, loc, log)
		compile(c)
		if got := c.stats(); got != (CompileCacheStats{Misses: 1}) {
			t.Errorf("%s entry: %+v, want a miss", what, got)
		}
		if !strings.Contains(logs.String(), "level=WARN") {
			t.Errorf("%s entry: no warning in the log:\n%s", what, logs.String())
		}
	}
	// The miss stored a good entry again.
	c := newCompileCache(b2, b2, loc, slog.New(slog.NewTextHandler(io.Discard, nil)))
	compile(c)
	if got := c.stats(); got.Hits != 1 {
		t.Errorf("after rewriting: %+v, want a hit", got)
	}
}
