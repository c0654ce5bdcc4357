package sidecar_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/proxy/proxyserver/proxyservertest"
	"github.com/openpathways/pathways/sidecar"
)

// serveHost serves a host of four gocpu devices and its CPU device through a
// proxy server, each session with its own sidecar state.
func serveHost(t *testing.T, proc *sidecar.Process) (addr string, host *sidecar.Client) {
	t.Helper()
	accel, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		t.Fatal(err)
	}
	host, err = sidecar.NewClient(accel, sidecar.ClientConfig{Process: proc, ColocationID: 7})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := proxyserver.New(proxyserver.Config{
		SessionBackend: func(context.Context, *slog.Logger) (ifrt.Client, error) { return host.Session(), nil },
		Logger:         slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		host.Close()
		accel.Close()
	})
	return proxyservertest.Serve(t, srv), host
}

// runJAX runs a testdata script under stock JAX against addr and returns the
// fields of the JSON lines it printed.
func runJAX(t testing.TB, py, addr, script string, env ...string) map[string]json.RawMessage {
	t.Helper()
	return startJAX(t, py, addr, script, nil, env...).wait()
}

// jaxScript is a testdata script running under stock JAX.
type jaxScript struct {
	t      testing.TB
	name   string
	cmd    *exec.Cmd
	cancel context.CancelFunc
	stdin  io.WriteCloser
	stderr strings.Builder
	lines  chan []byte // its stdout, line by line, closed at its end
	seen   []string
	out    map[string]json.RawMessage
}

// startJAX starts a testdata script with args under stock JAX against addr.
func startJAX(t testing.TB, py, addr, script string, args []string, env ...string) *jaxScript {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	j := &jaxScript{t: t, name: script, cancel: cancel, lines: make(chan []byte), out: map[string]json.RawMessage{}}
	j.cmd = exec.CommandContext(ctx, py, append([]string{filepath.Join("testdata", script)}, args...)...)
	j.cmd.Env = append(append(os.Environ(),
		"JAX_PLATFORMS=proxy",
		"JAX_BACKEND_TARGET=grpc://"+addr,
		"IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true",
		"TF_CPP_MIN_LOG_LEVEL=1",
	), env...)
	j.cmd.Stderr = &j.stderr
	stdout, err := j.cmd.StdoutPipe()
	if err == nil {
		j.stdin, err = j.cmd.StdinPipe()
	}
	if err == nil {
		err = j.cmd.Start()
	}
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		defer close(j.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			j.lines <- slices.Clone(sc.Bytes())
		}
	}()
	return j
}

// until reads the script's lines until one has key, and returns its value;
// the script ending first fails the test.
func (j *jaxScript) until(key string) json.RawMessage {
	j.t.Helper()
	for line := range j.lines {
		j.record(line)
		if v, ok := j.out[key]; ok {
			return v
		}
	}
	j.t.Fatalf("%s ended without printing %q", j.name, key)
	return nil
}

func (j *jaxScript) record(line []byte) {
	j.seen = append(j.seen, string(line))
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) == nil {
		for k, v := range obj {
			j.out[k] = v
		}
	}
}

// send writes a line to the script's stdin.
func (j *jaxScript) send(line string) {
	j.t.Helper()
	if _, err := io.WriteString(j.stdin, line+"\n"); err != nil {
		j.t.Fatalf("%s: writing to its stdin: %v", j.name, err)
	}
}

// wait waits for the script to end, which must be a success, and returns the
// fields of every JSON line it printed.
func (j *jaxScript) wait() map[string]json.RawMessage {
	j.t.Helper()
	defer j.cancel()
	for line := range j.lines {
		j.record(line)
	}
	_ = j.stdin.Close() // the script may have exited already; Wait says how it ended
	if err := j.cmd.Wait(); err != nil {
		j.t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s", j.name, err, strings.Join(j.seen, "\n"), j.stderr.String())
	}
	return j.out
}

func field[T any](t testing.TB, out map[string]json.RawMessage, key string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(out[key], &v); err != nil {
		t.Errorf("%s = %s: %v", key, out[key], err)
	}
	return v
}

// TestInteropColocatedPython runs jax.experimental.colocated_python from stock
// JAX through the proxy server on one host: colocated_cpu_devices finds the
// host's CPU device (left out of jax.devices()), arrays go there from numpy
// and from an accelerator and back, a function adds one and names the host, a
// colocated object counts across calls, a function's exception reaches the
// client with its type and message, and killing the sidecar in the middle of
// a call fails that call with DATA_LOSS while the next call works.
func TestInteropColocatedPython(t *testing.T) { forEachJAX(t, testInteropColocatedPython) }

func testInteropColocatedPython(t *testing.T, py string) {
	mark := filepath.Join(t.TempDir(), "started")
	proc := startSidecar(t, py, "PATHWAYS_HOST_NAME=host-0", "SIDECAR_TEST_MARK="+mark)
	addr, host := serveHost(t, proc)

	killed := killOnMark(t, mark, proc.PID)
	out := runJAX(t, py, addr, "colocated.py")

	cpuID := int(host.HostDevice().ID)
	if got := field[int](t, out, "devices"); got != 4 {
		t.Errorf("jax.devices() has %d devices, want the 4 accelerators", got)
	}
	if got := field[int](t, out, "all_devices"); got != 5 {
		t.Errorf("_get_all_devices() has %d devices, want 4 accelerators and the CPU device", got)
	}
	if diff := cmp.Diff([]int{cpuID}, field[[]int](t, out, "cpu_ids")); diff != "" {
		t.Errorf("colocated_cpu_devices (-want +got):\n%s", diff)
	}
	if got := field[string](t, out, "cpu_kind"); got != "cpu" {
		t.Errorf("the CPU device's kind is %q", got)
	}
	if got := field[string](t, out, "accelerator_kind"); got != sidecar.DefaultAcceleratorKind {
		t.Errorf("the accelerators' kind is %q", got)
	}
	if diff := cmp.Diff([]int{cpuID}, field[[]int](t, out, "on_cpu")); diff != "" {
		t.Errorf("device_put to the CPU device (-want +got):\n%s", diff)
	}
	twice := []float64{0, 2, 4, 6, 8, 10, 12, 14}
	for _, k := range []string{"from_accel", "back"} {
		if diff := cmp.Diff(twice, field[[]float64](t, out, k)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", k, diff)
		}
	}
	plusOne := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	if diff := cmp.Diff(plusOne, field[[]float64](t, out, "add_one")); diff != "" {
		t.Errorf("add_one (-want +got):\n%s", diff)
	}
	if got := field[string](t, out, "host"); got != "host-0" {
		t.Errorf("the function ran on host %q, want host-0", got)
	}
	if diff := cmp.Diff([]int{cpuID}, field[[]int](t, out, "result_device")); diff != "" {
		t.Errorf("the result's devices (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 2, 3}, field[[]float64](t, out, "counter")); diff != "" {
		t.Errorf("the colocated counter (-want +got):\n%s", diff)
	}
	checkRaisedAndKilled(t, out, "(8,)", killed)
	if diff := cmp.Diff(plusOne, field[[]float64](t, out, "after_restart")); diff != "" {
		t.Errorf("after the restart (-want +got):\n%s", diff)
	}
	t.Logf("the raising function: %s", out["raised"])
	t.Logf("the killed call: %s", out["killed"])
}
