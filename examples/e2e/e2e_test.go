// Package e2e runs the binaries of examples/server and examples/proxy_server as
// separate processes on loopback — a resource manager, a worker per slice and a
// proxy server — and drives them with the real JAX client.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
)

const testTimeout = 3 * time.Minute

// proc is one started binary.
type proc struct {
	name  string
	cmd   *exec.Cmd
	lines chan string // stdout lines
	logs  *testenv.SyncBuffer
	done  chan struct{}
	err   error // after done
}

func start(t *testing.T, name, bin string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	p := &proc{name: name, cmd: cmd, lines: make(chan string, 64), logs: &testenv.SyncBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.logs
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, testenv.LastLines(p.logs.String(), 40))
		}
	})
	return p
}

// ready waits for the ready line and returns the address after " on ".
func (p *proc) ready(t *testing.T, ctx context.Context, prefix string) string {
	t.Helper()
	line := p.readyLine(t, ctx, prefix)
	m := regexp.MustCompile(` on (\S+)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("%s: ready line %q has no address", p.name, line)
	}
	return m[1]
}

// stop sends SIGTERM and expects a clean exit (unless the process was killed).
func (p *proc) stop(t *testing.T) {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			t.Errorf("%s did not exit cleanly on SIGTERM: %v", p.name, p.err)
		}
	case <-time.After(40 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		t.Errorf("%s did not exit within 40s of SIGTERM", p.name)
	}
}

// kill9 kills the process as a crash would.
func (p *proc) kill9(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
}

func build(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = testenv.ModuleRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

func pluginPath(t *testing.T) string { return testenv.LammpsPlugin.Path(t) }

// procCluster is an RM, its workers and a proxy server, each a process.
type procCluster struct {
	t         *testing.T
	ctx       context.Context
	server    string // the server binary
	backend   string // the workers' --backend
	rmAddr    string
	proxyPort string
	workers   map[int]*proc // by slice, the running ones
}

// portOf returns the port of a listener address such as "[::]:1234".
func portOf(addr string) string {
	i := strings.LastIndex(addr, ":")
	return addr[i+1:]
}

// startCluster builds the binaries and starts an RM with two cpu:4 slices, a
// worker for each on backend, and a proxy server with proxyArgs.
func startCluster(t *testing.T, ctx context.Context, backend string, proxyArgs ...string) *procCluster {
	t.Helper()
	dir := t.TempDir()
	c := &procCluster{t: t, ctx: ctx, backend: backend, workers: map[int]*proc{}}
	c.server = build(t, dir, "./examples/server")
	proxyServer := build(t, dir, "./examples/proxy_server")

	rm := start(t, "rm", c.server, []string{"HOST_ADDRESS=127.0.0.1", "TPU_SKIP_MDS_QUERY=true"},
		"--node_type=resource_manager", "--server_port=0", "--instance_type=cpu:4", "--instance_count=2",
		"--gcs_scratch_location=file://"+dir)
	c.rmAddr = "127.0.0.1:" + portOf(rm.ready(t, ctx, "resource manager ready"))
	c.startWorker(0)
	c.startWorker(1)
	px := start(t, "proxy", proxyServer, nil, append([]string{"--server_port=0", "--resource_manager_address=" + c.rmAddr}, proxyArgs...)...)
	c.proxyPort = portOf(px.ready(t, ctx, "IFRT proxy server started with status OK"))
	return c
}

// startWorker starts the worker of a slice, as its JobSet pod would be, with
// extra flags.
func (c *procCluster) startWorker(slice int, extra ...string) {
	c.t.Helper()
	w := start(c.t, fmt.Sprintf("worker%d", slice), c.server,
		[]string{"MEGASCALE_NUM_SLICES=2", fmt.Sprintf("MEGASCALE_SLICE_ID=%d", slice), "MEGASCALE_COORDINATOR_ADDRESS=127.0.0.1", "HOST_ADDRESS=127.0.0.1"},
		append([]string{"--server_port=0", "--resource_manager_address=" + c.rmAddr, "--backend=" + c.backend}, extra...)...)
	w.ready(c.t, c.ctx, "worker ready")
	c.workers[slice] = w
}

// kill9 kills the worker of a slice with SIGKILL.
func (c *procCluster) kill9(slice int) {
	c.t.Helper()
	c.workers[slice].kill9(c.t)
	delete(c.workers, slice)
}

// runJAX runs testdata/<script> with the JAX client pointed at the proxy
// server. The script prints JSON objects, one a line; {"waiting": step} makes
// the test call onStep(step) and then answer step on the script's stdin. It
// returns every printed field, and the script's stderr, whose tail it logs if
// the test fails.
func (c *procCluster) runJAX(python, script string, onStep func(step string)) (map[string]json.RawMessage, string) {
	t := c.t
	t.Helper()
	path, _ := filepath.Abs(filepath.Join("testdata", script))
	cmd := exec.CommandContext(c.ctx, python, path)
	cmd.Env = append(os.Environ(),
		"JAX_PLATFORMS=proxy",
		"JAX_BACKEND_TARGET=grpc://127.0.0.1:"+c.proxyPort,
		"IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true",
		"PATHWAYS_PROXY_CONNECTION_TIMEOUT_SECS=60",
		"TF_CPP_MIN_LOG_LEVEL=1",
	)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &testenv.SyncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		var obj map[string]json.RawMessage
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &obj) != nil {
			continue
		}
		t.Logf("python: %s", line)
		for k, v := range obj {
			out[k] = v
		}
		var step string
		if raw, ok := obj["waiting"]; ok && json.Unmarshal(raw, &step) == nil {
			onStep(step)
			if _, err := io.WriteString(stdin, step+"\n"); err != nil {
				t.Fatalf("%s: answer step %q: %v", script, step, err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s failed: %v\nstderr:\n%s", script, err, testenv.LastLines(stderr.String(), 40))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s stderr (tail):\n%s", script, testenv.LastLines(stderr.String(), 40))
		}
	})
	return out, stderr.String()
}

// restartWorker1 is runJAX's onStep for the scripts that wait while worker 1
// is killed ("killed") and while it starts again ("restarted").
func (c *procCluster) restartWorker1(step string) {
	switch step {
	case "killed":
		c.kill9(1)
	case "restarted":
		c.startWorker(1)
	}
}

// checker compares printed fields with their expected JSON.
func checker(t *testing.T, out map[string]json.RawMessage) func(key, want string) {
	return func(key, want string) {
		t.Helper()
		got, ok := out[key]
		if !ok {
			t.Errorf("the script printed no %s", key)
			return
		}
		if string(got) != want {
			t.Errorf("%s = %s, want %s", key, got, want)
		}
	}
}

// checkDevices checks that jax.devices() showed 4 devices on each of 2 slices.
func checkDevices(t *testing.T, out map[string]json.RawMessage) {
	t.Helper()
	var devs []struct {
		ID         int `json:"id"`
		SliceIndex int `json:"slice_index"`
	}
	if err := json.Unmarshal(out["devices"], &devs); err != nil {
		t.Fatalf("devices %s: %v", out["devices"], err)
	}
	perSlice := map[int]int{}
	for _, d := range devs {
		perSlice[d.SliceIndex]++
	}
	if len(devs) != 8 || perSlice[0] != 4 || perSlice[1] != 4 {
		t.Errorf("jax.devices() = %s, want 4 devices on slice 0 and 4 on slice 1", out["devices"])
	}
}

// errorSays checks that a printed error (or its message) contains every want.
func errorSays(t *testing.T, out map[string]json.RawMessage, key string, want ...string) {
	t.Helper()
	var e struct{ Type, Message string }
	if err := json.Unmarshal(out[key], &e); err != nil {
		t.Errorf("%s = %s, want an error saying %q", key, out[key], want)
		return
	}
	for _, w := range want {
		if !strings.Contains(e.Message, w) {
			t.Errorf("%s = %s, want an error saying %q", key, out[key], w)
		}
	}
}

func skipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes and a real JAX client; skipped with -short")
	}
}

// TestElasticCluster starts an RM, two workers (two cpu slices of 4 devices on
// the PJRT CPU plugin) and a proxy server with --num_elastic_instances=1 as
// processes, runs a JAX script against them, kills the worker of slice 1 with
// SIGKILL and starts it again, all under one JAX client and one proxy server;
// then kills both workers, which is more than the proxy allows. It does so once
// for each JAX environment (subtests jaxlib-VERSION).
func TestElasticCluster(t *testing.T) {
	skipShort(t)
	plugin := pluginPath(t)
	if out, err := exec.Command("go", "env", "CGO_ENABLED").Output(); err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Skip("the workers load the PJRT plugin with cgo, which this build has off")
	}
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testElasticCluster(t, jax.Python, plugin) })
}

func testElasticCluster(t *testing.T, python, plugin string) {
	ctx := testenv.Context(t, testTimeout)
	dumpDir := filepath.Join(t.TempDir(), "xla_dump")
	c := startCluster(t, ctx, "pjrt:"+plugin, "--num_elastic_instances=1",
		// XLA flags of each type reach the workers' compiles; xla_dump_to shows it.
		"--xla_cpu_enable_fast_math=false", "--xla_cpu_parallel_codegen_split_count=4", "--xla_dump_to="+dumpDir)

	out, _ := c.runJAX(python, "elastic_cluster.py", func(step string) {
		if step == "killed_both" {
			c.kill9(0)
			c.kill9(1)
		}
		c.restartWorker1(step)
	})

	check := checker(t, out)
	checkDevices(t, out)
	check("jit", `{"0": true, "1": true}`)
	check("across", "true")
	check("across_slices", "[0, 1]")
	check("reshard", `{"device_put": true, "pathwaysutils": true}`)
	check("active_before", "[0, 1]")
	errorSays(t, out, "lost", "DATA_LOSS")
	check("slice0_after_loss", "true")
	if _, ok := out["active_after_loss_is_slice_down"]; ok {
		// The dispatch to the lost slice raised (see the script); it must be an
		// error pathwaysutils takes for a slice down.
		check("active_after_loss_is_slice_down", "true")
	} else {
		check("active_after_loss", "[0]")
	}
	check("active_slice0_only", "[0]")
	check("active_after_restart", "[0, 1]")
	check("slice1_after_restart", "true")
	check("reshard_after_restart", "true")
	errorSays(t, out, "old_array_after_restart", "DATA_LOSS")
	errorSays(t, out, "session_failed", "UNAVAILABLE", "2 slices lost", "--num_elastic_instances")
	check("done", "true")
	if dumps, _ := os.ReadDir(dumpDir); len(dumps) == 0 {
		t.Errorf("the proxy's --xla_dump_to=%s made no dump: the XLA flags did not reach the compiles", dumpDir)
	} else {
		t.Logf("--xla_dump_to: %d files, e.g. %s", len(dumps), dumps[0].Name())
	}
}

// TestGoCPUCluster is the part of TestElasticCluster that needs no PJRT plugin:
// gocpu workers holding arrays, so devices, transfers, the loss and the return
// of a worker show. (gocpu also runs the programs JAX sends; the proxy's
// interop tests cover that.)
func TestGoCPUCluster(t *testing.T) {
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testGoCPUCluster(t, jax.Python) })
}

func testGoCPUCluster(t *testing.T, python string) {
	ctx := testenv.Context(t, testTimeout)
	c := startCluster(t, ctx, "gocpu", "--num_elastic_slices=1")
	out, _ := c.runJAX(python, "gocpu_cluster.py", c.restartWorker1)
	check := checker(t, out)
	checkDevices(t, out)
	check("on_slices", `{"0": true, "1": true}`)
	check("across", "true")
	check("copied_to_slice1", "true")
	errorSays(t, out, "lost", "DATA_LOSS")
	check("slice0_after_loss", "true")
	check("slice1_after_restart", "true")
	errorSays(t, out, "old_array_after_restart", "DATA_LOSS")
}

// TestGangCluster runs one program across two worker processes from stock
// JAX, kills one participant with SIGKILL during a loop of launches (the
// launch fails with DATA_LOSS, nothing hangs, slice 0 alone goes on) and
// starts it again (spanning launches work again).
func TestGangCluster(t *testing.T) {
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { testGangCluster(t, jax.Python, "gocpu") })
}

func testGangCluster(t *testing.T, python, backend string) {
	ctx := testenv.Context(t, testTimeout)
	c := startCluster(t, ctx, backend, "--num_elastic_slices=1")
	out, _ := c.runJAX(python, "gang_cluster.py", c.restartWorker1)
	check := checker(t, out)
	check("spanning", "true")
	errorSays(t, out, "lost", "DATA_LOSS")
	check("hung", "false")
	check("slice0_while_down", "true")
	check("spanning_after_restart", "true")
	t.Logf("the launch in flight failed %s s after the kill", out["lost_after_s"])
}
