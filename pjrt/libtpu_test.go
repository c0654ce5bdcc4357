package pjrt

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

// libtpu is loaded in a child process (this test binary re-run): it is a 550 MB
// library that initializes TPU drivers, and a hang or a changed signal handler
// there must not take the rest of the tests with it.
const libtpuChildEnv = "PATHWAYS_PJRT_LIBTPU_CHILD"

func libtpuPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("PATHWAYS_LIBTPU")
	if path == "" {
		dir, _ := os.Getwd()
		for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
		}
		path = filepath.Join(dir, ".plugins", "libtpu.so")
	}
	if _, err := os.Stat(path); err != nil {
		msg := "libtpu not found at " + path + " (set PATHWAYS_LIBTPU or run scripts/setup_plugins.sh)"
		if os.Getenv("PATHWAYS_REQUIRE_PLUGINS") == "1" {
			t.Fatal(msg + "; PATHWAYS_REQUIRE_PLUGINS=1")
		}
		t.Skip(msg)
	}
	return path
}

func TestLibTPUWithoutTPU(t *testing.T) {
	if !haveCgo {
		t.Skip("needs cgo")
	}
	path := libtpuPath(t)
	if os.Getenv(libtpuChildEnv) == "1" {
		libtpuChild(t, path)
		return
	}
	ctx := testenv.Context(t, 4*time.Minute)
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLibTPUWithoutTPU$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), libtpuChildEnv+"=1", "PATHWAYS_LIBTPU="+path, "TPU_SKIP_MDS_QUERY=1",
		"TPU_MIN_LOG_LEVEL=3", "TPU_STDERR_LOG_LEVEL=3")
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	t.Logf("child (%v):\n%s", time.Since(start).Round(time.Millisecond), out)
	if ctx.Err() != nil {
		t.Fatalf("libtpu child did not finish in time (hang?)")
	}
	if err != nil {
		t.Fatalf("libtpu child failed: %v", err)
	}
}

func libtpuChild(t *testing.T, path string) {
	before, beforeFlags := signalSnapshot(64)
	threadsBefore := threadCount()
	start := time.Now()
	p, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	major, minor := p.Version()
	t.Logf("libtpu %s: PJRT API %d.%d, table %d bytes, loaded in %v", path, major, minor, p.TableSize(), time.Since(start).Round(time.Millisecond))
	t.Logf("extensions: %v", p.Extensions())

	done := make(chan error, 1)
	start = time.Now()
	go func() { done <- p.Initialize() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Initialize: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("PJRT_Plugin_Initialize did not return in 2 minutes")
	}
	t.Logf("initialized in %v; attributes %v", time.Since(start).Round(time.Millisecond), p.Attributes())

	start = time.Now()
	type result struct {
		c   *Client
		err error
	}
	created := make(chan result, 1)
	go func() {
		c, err := p.NewClient(context.Background(), nil)
		created <- result{c, err}
	}()
	select {
	case r := <-created:
		if r.err == nil {
			defer r.c.Close()
			t.Logf("client created (a TPU is present?): %v, %d devices", r.c, len(r.c.Devices()))
			return
		}
		var perr *Error
		if !errors.As(r.err, &perr) {
			t.Fatalf("NewClient without a TPU: %v, want a *pjrt.Error", r.err)
		}
		t.Logf("NewClient without a TPU failed after %v as expected: code %v: %s", time.Since(start).Round(time.Millisecond), perr.Code, firstLine(perr.Msg))
	case <-time.After(2 * time.Minute):
		t.Fatal("PJRT_Client_Create did not return in 2 minutes")
	}

	// Deviceless (ahead-of-time) compilation for a TPU slice.
	libtpuAOT(t, p)

	// The Go runtime still works: goroutines, GC, timers, a preemption signal.
	ch := make(chan int)
	go func() { ch <- 42 }()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
	if <-ch != 42 {
		t.Fatal("goroutine")
	}
	reportSignalChanges(t, before, beforeFlags)
	t.Logf("OS threads: %d before loading, %d after", threadsBefore, threadCount())
}

// reportSignalChanges logs every signal disposition that differs from the
// snapshot and fails the test if a handler was installed without SA_ONSTACK,
// which the Go runtime requires of foreign handlers.
func reportSignalChanges(t *testing.T, before []uintptr, beforeFlags []int) {
	t.Helper()
	const saOnStack = 0x08000000
	after, afterFlags := signalSnapshot(len(before))
	segv := int(syscall.SIGSEGV) - 1
	if before[segv] <= 1 {
		t.Errorf("snapshot sees no SIGSEGV handler (%#x); the Go runtime installs one", before[segv])
	}
	changed := 0
	for i := range before {
		if before[i] == after[i] && beforeFlags[i] == afterFlags[i] {
			continue
		}
		changed++
		sig := syscall.Signal(i + 1)
		t.Logf("signal %d (%v): handler %#x flags %#x -> %#x flags %#x", i+1, sig, before[i], beforeFlags[i], after[i], afterFlags[i])
		if after[i] > 1 && afterFlags[i]&saOnStack == 0 { // 0 = SIG_DFL, 1 = SIG_IGN
			t.Errorf("signal %d (%v) now has a handler without SA_ONSTACK", i+1, sig)
		}
	}
	t.Logf("signal dispositions changed: %d", changed)
}

// TestCPUPluginsRuntimeConflicts loads both CPU plugins in a child process,
// runs a program on each and reports signal-handler and thread changes.
func TestCPUPluginsRuntimeConflicts(t *testing.T) {
	if !haveCgo {
		t.Skip("needs cgo")
	}
	const childEnv = "PATHWAYS_PJRT_CONFLICT_CHILD"
	root := ".."
	var paths []string
	for _, bp := range benchPlugins {
		path := os.Getenv(bp.env)
		if path == "" {
			path = filepath.Join(root, bp.link)
		}
		if _, err := os.Stat(path); err == nil {
			paths = append(paths, path)
		}
	}
	if len(paths) == 0 {
		if os.Getenv("PATHWAYS_REQUIRE_PLUGINS") == "1" {
			t.Fatal("no CPU plugin found; PATHWAYS_REQUIRE_PLUGINS=1")
		}
		t.Skip("no CPU plugin found (run scripts/setup_plugins.sh)")
	}
	if os.Getenv(childEnv) != "1" {
		ctx := testenv.Context(t, 3*time.Minute)
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestCPUPluginsRuntimeConflicts$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		t.Logf("child:\n%s", out)
		if err != nil {
			t.Fatalf("child failed: %v", err)
		}
		return
	}
	before, beforeFlags := signalSnapshot(64)
	threads := threadCount()
	for _, path := range paths {
		p, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.NewClient(context.Background(), map[string]any{"cpu_device_count": int64(8)})
		if err != nil {
			t.Fatal(err)
		}
		x, err := c.Compile(context.Background(), []byte(tinyAdd), "mlir", CompileOptions{}.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		in, err := c.BufferFromHost(context.Background(), make([]byte, 16), F32, []int64{4}, nil)
		if err != nil {
			t.Fatal(err)
		}
		outs, evs, err := x.Execute(context.Background(), [][]*Buffer{{in, in}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := evs[0].Await(context.Background()); err != nil {
			t.Fatal(err)
		}
		_ = outs
		t.Logf("%s: OS threads %d -> %d (client open)", filepath.Base(path), threads, threadCount())
		c.Close()
	}
	runtime.GC()
	reportSignalChanges(t, before, beforeFlags)
}

func libtpuAOT(t *testing.T, p *Plugin) {
	ctx := context.Background()
	var topo *Topology
	for _, name := range []string{"v5e:2x2", "v6e:2x2", "v5p:2x2x1", "v4:2x2x1"} {
		tp, err := p.NewTopology(ctx, name, nil)
		if err != nil {
			t.Logf("NewTopology(%q): %v", name, firstLine(err.Error()))
			continue
		}
		topo = tp
		break
	}
	if topo == nil {
		t.Log("no TPU topology could be described; skipping AOT compile")
		return
	}
	defer topo.Close()
	devs := topo.Devices()
	t.Logf("topology %q: platform %q version %q, %d devices", topo.Name(), topo.PlatformName(), topo.PlatformVersion(), len(devs))
	for i, d := range devs {
		if i < 2 {
			t.Logf("  device %d kind %q %s attributes %v", d.ID, d.Kind, d.String, d.Attributes)
		}
	}
	const program = `func.func @main(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}`
	start := time.Now()
	x, err := topo.Compile(ctx, []byte(program), "mlir", CompileOptions{DeviceAssignment: [][]int{{devs[0].ID}}}.Marshal())
	if err != nil {
		t.Errorf("AOT compile for %s: %v", topo.Name(), firstLine(err.Error()))
		return
	}
	defer x.Close()
	blob, err := x.Serialize()
	if err != nil {
		t.Errorf("Serialize: %v", err)
		return
	}
	types, _ := x.OutputTypes()
	dims, _ := x.OutputDims()
	t.Logf("AOT-compiled %q for %s in %v: outputs %v %v, serialized %d bytes",
		x.Name(), topo.Name(), time.Since(start).Round(time.Millisecond), types, dims, len(blob))

	// The JAX 0.10.2 portable artifact (MLIR bytecode) on libtpu.
	artifact, err := os.ReadFile("testdata/jax_export_f32.mlirbc")
	if err != nil {
		t.Fatal(err)
	}
	y, err := topo.Compile(ctx, artifact, "mlir", CompileOptions{DeviceAssignment: [][]int{{devs[0].ID}}}.Marshal())
	if err != nil {
		t.Errorf("libtpu AOT compile of the JAX 0.10.2 artifact: %v", firstLine(err.Error()))
		return
	}
	defer y.Close()
	t.Logf("libtpu AOT-compiles the JAX 0.10.2 portable artifact: %d outputs", y.NumOutputs())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// threadCount reads the process's thread count from /proc (0 if unavailable).
func threadCount() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Threads:"); ok {
			n := 0
			for _, c := range strings.TrimSpace(rest) {
				n = n*10 + int(c-'0')
			}
			return n
		}
	}
	return 0
}
