package interop_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
)

// testTimeout bounds every blocking step of a test that is not a script run.
const testTimeout = 20 * time.Second

// syncBuffer is the log sink these tests hand their servers.
type syncBuffer = testenv.SyncBuffer

// interopBackend is a backend the interop tests serve to the real JAX client.
type interopBackend struct {
	name string
	// newClient returns a fresh backend with at least 8 devices.
	newClient func(t *testing.T) ifrt.Client
	// live reports the arrays and executables the backend holds; ok is false if
	// it cannot tell.
	live func(c ifrt.Client) (arrays, executables int, ok bool)
	// workerDevices, when set, is the number of devices of each of the
	// backend's workers: TestInteropPrograms runs its programs once on one
	// worker's devices and once over all of them (a gang).
	workerDevices int
	// compiledHLO says compiled.as_text() shows the compiled HLO (the PJRT
	// backends); gocpu has no program text to show, which JAX reads as None.
	compiledHLO bool
}

// interopBackends lists the backends under test. A backend joins by adding an
// entry.
var interopBackends = []interopBackend{{
	name: "gocpu",
	newClient: func(t *testing.T) ifrt.Client {
		c, err := gocpu.New(gocpu.Config{Devices: 8})
		if err != nil {
			t.Fatal(err)
		}
		return c
	},
	live: func(c ifrt.Client) (int, int, bool) {
		var g *gocpu.Client
		if !c.As(&g) {
			return 0, 0, false
		}
		a, e := g.Live()
		return a, e, true
	},
}}

// interopServer is a proxy server on a loopback TCP port.
type interopServer struct {
	srv      *proxyserver.Server
	backend  ifrt.Client
	addr     string
	logs     *syncBuffer
	python   string // the JAX environment's interpreter
	recorder *compileRecorder
}

// everyBackend returns interopBackends with cluster_gocpu first: of them it
// reaches the most of the server (the proxy, the cluster client, two workers
// and gocpu's interpreter of the bytecode).
func everyBackend(t *testing.T) []interopBackend {
	all := []interopBackend{interopBackendNamed(t, "cluster_gocpu")}
	for _, b := range interopBackends {
		if b.name != all[0].name {
			all = append(all, b)
		}
	}
	return all
}

// backendsNamed returns the interop backends of names, in that order.
func backendsNamed(t *testing.T, names ...string) []interopBackend {
	var bs []interopBackend
	for _, name := range names {
		bs = append(bs, interopBackendNamed(t, name))
	}
	return bs
}

// forEachInterop runs f in subtests named jaxlib-VERSION/BACKEND: with the
// newest JAX environment found on each of backends, with every other one on
// the first of backends only. A jaxlib changes what the client sends (its
// requests, its bytecode, its options) and a backend what serves them, so the
// cross product would mostly repeat itself, at five times the cost: 73 of the
// 90 minutes CI allows on 2 cores. How each jaxlib's programs run in the
// interpreter is TestCorpusUpToDate's (package internal/stablehlo).
func forEachInterop(t *testing.T, backends []interopBackend, f func(t *testing.T, jax testenv.JAX, b interopBackend)) {
	if testing.Short() {
		t.Skip("interop tests run real JAX processes; skipped with -short")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		run := backends
		if !newestJAX(jax) {
			run = backends[:1]
		}
		for _, b := range run {
			t.Run(b.name, func(t *testing.T) { f(t, jax, b) })
		}
	})
}

// newestJAX reports whether env has the newest jaxlib of the environments
// found: the one the interop tests run on every backend and in every mode.
func newestJAX(env testenv.JAX) bool {
	envs := testenv.JAXEnvs()
	return len(envs) > 0 && envs[len(envs)-1].Jaxlib == env.Jaxlib
}

func interopBackendNamed(t *testing.T, name string) interopBackend {
	for _, b := range interopBackends {
		if b.name == name {
			return b
		}
	}
	t.Fatalf("no interop backend %q", name)
	return interopBackend{}
}

func startInteropServer(t *testing.T, jax testenv.JAX, b interopBackend, plugins map[string]proxyserver.PluginHandler) *interopServer {
	t.Helper()
	rec := &compileRecorder{Client: b.newClient(t)}
	logs := &syncBuffer{}
	s := serveInterop(t, jax.Python, rec, logs, proxyserver.Config{
		Logger:         slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		PluginPrograms: plugins,
	})
	s.recorder = rec
	return s
}

// serveInterop serves backend with cfg on a loopback TCP port until the test
// ends, then closes the backend; logs is what cfg.Logger writes to, shown if
// the test failed.
func serveInterop(t *testing.T, python string, backend ifrt.Client, logs *syncBuffer, cfg proxyserver.Config) *interopServer {
	t.Helper()
	cfg.Backend = backend
	srv, err := proxyserver.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		backend.Close()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	addr := proxyservertest.Serve(t, srv)
	return &interopServer{srv: srv, backend: backend, addr: addr, logs: logs, python: python}
}

// runScript runs testdata/<script> against the server and returns the JSON
// objects it printed, keyed by field.
func (s *interopServer) runScript(t *testing.T, script string, extraEnv ...string) (map[string]json.RawMessage, error) {
	t.Helper()
	return s.runSteps(t, script, nil, extraEnv...)
}

// runSteps is runScript for a script that waits for the test: when it prints
// {"waiting": step}, onStep(step) runs and then a line goes to the script's
// stdin.
func (s *interopServer) runSteps(t *testing.T, script string, onStep func(step string), extraEnv ...string) (map[string]json.RawMessage, error) {
	t.Helper()
	// Only a hang guard: the longest script takes about a minute under the
	// race detector on an idle 2-core machine, and over three on a busy one.
	ctx := testenv.Context(t, 8*time.Minute)
	dir, _ := filepath.Abs("testdata")
	cmd := exec.CommandContext(ctx, s.python, filepath.Join(dir, script))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"JAX_PLATFORMS=proxy",
		"JAX_BACKEND_TARGET=grpc://"+s.addr,
		"IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true",
		"PATHWAYS_PROXY_CONNECTION_TIMEOUT_SECS=30",
		"TF_CPP_MIN_LOG_LEVEL=1",
	)
	cmd.Env = append(cmd.Env, extraEnv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stdout strings.Builder
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	sc := bufio.NewScanner(stdoutPipe)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		stdout.WriteString(line + "\n")
		var obj map[string]json.RawMessage
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &obj) != nil {
			continue
		}
		for k, v := range obj {
			out[k] = v
		}
		var step string
		if raw, ok := obj["waiting"]; ok && onStep != nil && json.Unmarshal(raw, &step) == nil {
			onStep(step)
			if _, err := io.WriteString(stdin, step+"\n"); err != nil {
				return out, fmt.Errorf("%s: answer step %q: %w", script, step, err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		return out, fmt.Errorf("%s: %v\nstdout:\n%s\nstderr:\n%s", script, err, stdout.String(), testenv.LastLines(stderr.String(), 60))
	}
	t.Logf("%s stderr (tail):\n%s", script, testenv.LastLines(stderr.String(), 8))
	return out, nil
}

// expectFreed waits for the client's session to end and checks the backend
// holds nothing.
func (s *interopServer) expectFreed(t *testing.T, b interopBackend) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.srv.Sessions() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := s.srv.Sessions(); n > 0 {
		t.Fatalf("%d sessions still open after the client exited", n)
	}
	if a, e, ok := b.live(s.backend); ok && (a != 0 || e != 0) {
		t.Errorf("after the client exited the backend holds %d arrays and %d executables, want 0 and 0", a, e)
	}
}

func decode[T any](t *testing.T, out map[string]json.RawMessage, key string) T {
	t.Helper()
	var v T
	raw, ok := out[key]
	if !ok {
		t.Fatalf("the script printed no %q", key)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return v
}

func TestInteropDevicesAndTransfers(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "devices_transfer.py")
		if err != nil {
			t.Fatal(err)
		}
		type dev struct {
			ID       int
			Platform string
			Kind     string
		}
		devs := decode[[]dev](t, out, "devices")
		if len(devs) != len(s.backend.Devices()) {
			t.Errorf("jax.devices() lists %d devices, the backend has %d", len(devs), len(s.backend.Devices()))
		}
		for i, d := range devs {
			if d.Platform != "cpu" || d.ID != int(s.backend.Devices()[i].ID) {
				t.Errorf("device %d = %+v, want id %d on platform cpu", i, d, s.backend.Devices()[i].ID)
			}
		}
		for name, ok := range decode[map[string]bool](t, out, "transfers") {
			if !ok {
				t.Errorf("device_put/device_get of %s is not bit-exact", name)
			}
		}
		if !decode[bool](t, out, "strided") {
			t.Error("a strided numpy array did not round-trip")
		}
		if v := decode[float64](t, out, "scalar"); v != 3.5 {
			t.Errorf("scalar = %v, want 3.5", v)
		}
		if v := decode[[]int](t, out, "empty"); len(v) != 2 || v[0] != 0 || v[1] != 4 {
			t.Errorf("empty array shape = %v", v)
		}
		if msg := decode[*string](t, out, "deleted_error"); msg == nil || !strings.Contains(strings.ToLower(*msg), "deleted") {
			t.Errorf("using a deleted array: error = %v, want one that says it was deleted", msg)
		}
		decode[bool](t, out, "ready")
		s.expectFreed(t, b)
		if !strings.Contains(s.logs.String(), "client_protocol_max") {
			t.Error("the server did not log the client's version range")
		}
		for _, line := range strings.Split(s.logs.String(), "\n") {
			if strings.Contains(line, "ifrt proxy client version") {
				t.Log(line)
				break
			}
		}
	})
}

type pyError struct {
	Type    string
	Message string
}

func TestInteropErrors(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, map[string]proxyserver.PluginHandler{"testRequest": proxyservertest.EchoPlugin})
		out, err := s.runScript(t, "errors.py")
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ OK []float64 }
		if err := json.Unmarshal(out["jit"], &r); err != nil || fmt.Sprint(r.OK) != "[1 3 5 7 9 11 13 15]" {
			t.Errorf("jit(a*2+1) = %s, want [1 3 5 ... 15]", out["jit"])
		}
		if e := decode[*pyError](t, out, "bad_plugin"); e == nil || e.Type != "JaxRuntimeError" ||
			!strings.HasPrefix(e.Message, "INVALID_ARGUMENT") || !strings.Contains(e.Message, "Bad PluginProgram") {
			t.Errorf("an unknown plugin program raised %+v, want JaxRuntimeError(INVALID_ARGUMENT: Bad PluginProgram ...)", e)
		}
		if v := decode[[]float64](t, out, "echo"); fmt.Sprint(v) != "[0 1 2 3 4 5 6 7]" {
			t.Errorf("echo plugin = %v", v)
		}
		if e := decode[*pyError](t, out, "failed_plugin"); e == nil || e.Type != "JaxRuntimeError" || !strings.HasPrefix(e.Message, "DATA_LOSS") {
			t.Errorf("a failing plugin raised %+v, want JaxRuntimeError(DATA_LOSS: ...)", e)
		}
		if v := decode[[]int](t, out, "after"); fmt.Sprint(v) != "[1 1 1]" {
			t.Errorf("after the errors = %v", v)
		}
		s.expectFreed(t, b)
	})
}

// jitEnv runs the proxy as the default backend next to local CPU JAX, which
// computes the reference results.
var jitEnv = []string{"JAX_PLATFORMS=proxy,cpu"}

func TestInteropJit(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "jit_ops.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		for name, e := range decode[map[string]float64](t, out, "errors") {
			tol := 1e-5
			if name == "sharded_matmul" { // against numpy, not XLA
				tol = 1e-4
			}
			if e > tol {
				t.Errorf("%s differs from local CPU JAX by %g (tolerance %g)", name, e, tol)
			}
		}
		if got := decode[string](t, out, "sharded_out"); got != "P('x', 'y')" {
			t.Errorf("sharded matmul output sharding = %s", got)
		}
		if n := decode[int](t, out, "sharded_shards"); n != 8 {
			t.Errorf("sharded matmul output has %d shards, want 8", n)
		}
		if !decode[bool](t, out, "donated_deleted") || decode[float64](t, out, "donated_result") != 3 {
			t.Errorf("donation: deleted=%s result=%s", out["donated_deleted"], out["donated_result"])
		}
		if got := decode[[]float64](t, out, "chained"); fmt.Sprint(got) != "[10 10 10 10 10 10 10 10]" {
			t.Errorf("chained dispatches = %v", got)
		}
		checkStableHLOVersions(t, s)
		s.expectFreed(t, b)
	})
}

func TestInteropTrainMLP(t *testing.T) {
	forEachInterop(t, everyBackend(t), func(t *testing.T, jax testenv.JAX, b interopBackend) {
		s := startInteropServer(t, jax, b, nil)
		out, err := s.runScript(t, "train_mlp.py", jitEnv...)
		if err != nil {
			t.Fatal(err)
		}
		if e := decode[float64](t, out, "param_err"); e > 1e-5 {
			t.Errorf("parameters after 20 steps differ from local CPU JAX by %g", e)
		}
		if e := decode[float64](t, out, "loss_err"); e > 1e-5 {
			t.Errorf("losses differ from local CPU JAX by %g", e)
		}
		if !decode[bool](t, out, "decreased") {
			t.Errorf("the loss did not decrease: %s", out["losses"])
		}
		s.expectFreed(t, b)
	})
}
