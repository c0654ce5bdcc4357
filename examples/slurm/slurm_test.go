package slurm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/rm"
)

const (
	// numSlices and devicesPerSlice are the cluster the test starts: cpu:4 x 2.
	numSlices       = 2
	devicesPerSlice = 4
	// testTimeout bounds the whole test: building the binaries, the jobs
	// starting, the checks and the cancellation.
	testTimeout = 4 * time.Minute
)

// requireSlurm skips the test when no Slurm controller answers here, or fails
// it when PATHWAYS_REQUIRE_SLURM=1.
func requireSlurm(t *testing.T) {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...) + " (scripts/setup_slurm.sh sets up a one-node Slurm on this machine, as root)"
		if os.Getenv("PATHWAYS_REQUIRE_SLURM") == "1" {
			t.Fatal(msg + "; PATHWAYS_REQUIRE_SLURM=1 requires it")
		}
		t.Skip(msg)
	}
	for _, cmd := range []string{"sbatch", "squeue", "scancel", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(cmd); err != nil {
			unavailable("Slurm is not installed: no %s", cmd)
		}
	}
	conf := os.Getenv("SLURM_CONF")
	if conf == "" {
		conf = "/etc/slurm/slurm.conf"
	}
	if _, err := os.Stat(conf); err != nil {
		unavailable("Slurm is not configured: %v", err)
	}
	ctx := testenv.Context(t, 15*time.Second)
	out, err := exec.CommandContext(ctx, "scontrol", "ping").CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("UP")) {
		unavailable("no Slurm controller answers: scontrol ping: %v: %s", err, bytes.TrimSpace(out))
	}
	out, err = exec.CommandContext(ctx, "sinfo", "-h", "-o", "%T").Output()
	if err != nil || !strings.ContainsAny(string(out), "ima") { // idle, mixed, allocated
		unavailable("no Slurm node takes jobs: sinfo: %v: %s", err, bytes.TrimSpace(out))
	}
}

func TestSlurmCluster(t *testing.T) {
	requireSlurm(t)
	ctx := testenv.Context(t, testTimeout)

	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	buildBinaries(ctx, t, bin)
	scripts, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	rmPort, proxyPort, workerPort := freePorts(t)

	// Everything on loopback: the service job and the workers advertise
	// 127.0.0.1 whatever this machine's name resolves to.
	env := append(os.Environ(),
		"PATHWAYS_BIN_DIR="+bin,
		"PATHWAYS_DIR="+dir,
		"INSTANCE_TYPE=cpu:"+strconv.Itoa(devicesPerSlice),
		"MAX_SLICES="+strconv.Itoa(numSlices),
		"MIN_SLICES="+strconv.Itoa(numSlices),
		"PATHWAYS_HOST=127.0.0.1",
		"PATHWAYS_WORKER_HOST=127.0.0.1",
		"RM_PORT="+strconv.Itoa(rmPort),
		"PROXY_PORT="+strconv.Itoa(proxyPort),
		"WORKER_PORT="+strconv.Itoa(workerPort),
		"PATHWAYS_START_TIMEOUT=120",
	)
	submit := exec.CommandContext(ctx, "sbatch", "--parsable",
		"--job-name=pathways-test-"+strconv.Itoa(os.Getpid()),
		"--chdir="+dir, "--output="+filepath.Join(dir, "service-%j.out"),
		filepath.Join(scripts, "start_pathways.sh"))
	submit.Env = env
	out, err := submit.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch start_pathways.sh: %v: %s", err, out)
	}
	job, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
	t.Logf("service job %s", job)
	cancelled := false
	t.Cleanup(func() {
		if !cancelled {
			scancel(t, job)
		}
		if t.Failed() {
			dumpLogs(t, dir)
		}
	})

	envFile := filepath.Join(dir, "cluster.env")
	vars := waitForEnvFile(ctx, t, envFile, job)
	target := vars["JAX_BACKEND_TARGET"]
	want := fmt.Sprintf("grpc://127.0.0.1:%d", proxyPort)
	if target != want {
		t.Fatalf("cluster.env has JAX_BACKEND_TARGET=%q, want %q", target, want)
	}
	for k, v := range map[string]string{
		"JAX_PLATFORMS": "proxy", "IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS": "true",
		"PATHWAYS_RM_ADDRESS": fmt.Sprintf("127.0.0.1:%d", rmPort), "PATHWAYS_SERVICE_JOB_ID": job,
		"PATHWAYS_SLICES": strconv.Itoa(numSlices),
	} {
		if vars[k] != v {
			t.Errorf("cluster.env has %s=%q, want %q", k, vars[k], v)
		}
	}
	workers := vars["PATHWAYS_WORKER_JOB_ID"]

	checkCluster(ctx, t, target)
	t.Run("jax", func(t *testing.T) {
		testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) { checkJAX(ctx, t, jax.Python, vars) })
	})

	// Cancelling the service job takes the workers and cluster.env with it.
	scancel(t, job)
	cancelled = true
	waitGone(ctx, t, job, workers)
	if _, err := os.Stat(envFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cluster.env is still there after the service job was cancelled (%v)", err)
	}
}

// checkCluster connects to the proxy as a client program would and checks that
// it sees every slice's devices and can put data on all of them.
func checkCluster(ctx context.Context, t *testing.T, target string) {
	t.Helper()
	client, err := proxy.Dial(ctx, target)
	if err != nil {
		t.Fatalf("proxy.Dial(%s): %v", target, err)
	}
	defer client.Close()
	devs := client.Devices()
	if len(devs) != numSlices*devicesPerSlice {
		t.Fatalf("the proxy has %d devices, want %d (%d slices of %d)", len(devs), numSlices*devicesPerSlice, numSlices, devicesPerSlice)
	}
	perSlice := map[string]int{}
	for _, d := range devs {
		perSlice[fmt.Sprint(d.Attributes[ifrt.AttrSliceIndex])]++
	}
	for s := range numSlices {
		if n := perSlice[strconv.Itoa(s)]; n != devicesPerSlice {
			t.Errorf("slice %d has %d devices, want %d (devices per slice_index: %v)", s, n, devicesPerSlice, perSlice)
		}
	}

	// An array with one row on each device of both slices, back and forth.
	shape := ifrt.Shape{int64(len(devs)), 2}
	host := make([]byte, 4*shape.NumElements())
	for i := range shape.NumElements() {
		binary.LittleEndian.PutUint32(host[4*i:], uint32(i))
	}
	rows, err := ifrt.NewTiledSharding(devs, int64(len(devs)), 1)
	if err != nil {
		t.Fatal(err)
	}
	arr, err := client.MakeArrayFromHostBuffer(ctx, host, ifrt.ArraySpec{DType: ifrt.S32, Shape: shape, Sharding: rows}, nil)
	if err != nil {
		t.Fatalf("putting an array on every device: %v", err)
	}
	back := make([]byte, len(host))
	if err := arr.CopyToHostBuffer(ctx, back, nil); err != nil {
		t.Fatalf("reading it back: %v", err)
	}
	if !bytes.Equal(back, host) {
		t.Errorf("the array came back as %v, want %v", back, host)
	}
}

// checkJAX runs a stock JAX client with the variables of cluster.env, as the
// README tells users to.
func checkJAX(ctx context.Context, t *testing.T, python string, vars map[string]string) {
	script, err := filepath.Abs(filepath.Join("testdata", "jax_devices.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, python, script)
	cmd.Env = os.Environ()
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", python, script, err, out)
	}
	want := fmt.Sprintf("devices %d sum 28", numSlices*devicesPerSlice)
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("JAX printed no %q:\n%s", want, out)
	}
}

// buildBinaries builds examples/server and examples/proxy_server into dir.
func buildBinaries(ctx context.Context, t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	//lint:ignore SA1019 the go command of the toolchain that built this test is the one to build the job's binaries with
	gocmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gocmd); err != nil {
		gocmd = "go"
	}
	for _, name := range []string{"server", "proxy_server"} {
		if _, err := os.Stat(filepath.Join("..", name, "main.go")); err != nil {
			t.Skipf("no examples/%s in this tree to run: %v", name, err)
		}
		build := exec.CommandContext(ctx, gocmd, "build", "-o", filepath.Join(dir, name), "../"+name)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ../%s: %v\n%s", name, err, out)
		}
	}
}

// freePorts returns a free port for the RM and the proxy, and a base for the
// workers with the next numSlices-1 ports free too.
func freePorts(t *testing.T) (rm, proxy, worker int) {
	t.Helper()
	free := func(port int) bool {
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return false
		}
		l.Close()
		return true
	}
	pick := func(n int) int {
		for range 100 {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			base := l.Addr().(*net.TCPAddr).Port
			l.Close()
			ok := base+n <= 65535
			for p := base; ok && p < base+n; p++ {
				ok = free(p)
			}
			if ok {
				return base
			}
		}
		t.Fatalf("no %d free ports in a row", n)
		return 0
	}
	return pick(1), pick(1), pick(numSlices)
}

// waitForEnvFile waits until the service job writes cluster.env, failing if
// the job ends first, and returns its variables.
func waitForEnvFile(ctx context.Context, t *testing.T, path, job string) map[string]string {
	t.Helper()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		if data, err := os.ReadFile(path); err == nil {
			return parseEnvFile(data)
		}
		if state := jobState(t, job); state == "" {
			t.Fatalf("service job %s ended before it wrote %s", job, path)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no %s after %v: %v", path, testTimeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// parseEnvFile reads KEY=VALUE lines, skipping comments and blank lines.
func parseEnvFile(data []byte) map[string]string {
	vars := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			vars[k] = v
		}
	}
	return vars
}

// jobState is the job's state in squeue ("" once it has left the queue).
func jobState(t *testing.T, job string) string {
	t.Helper()
	out, err := exec.Command("squeue", "-h", "-j", job, "-o", "%T").Output()
	if err != nil {
		// squeue fails for a job id it no longer knows.
		return ""
	}
	return strings.TrimSpace(string(out))
}

func scancel(t *testing.T, job string) {
	t.Helper()
	if out, err := exec.Command("scancel", job).CombinedOutput(); err != nil {
		t.Errorf("scancel %s: %v: %s", job, err, out)
	}
}

// waitGone waits until none of the jobs is in the queue.
func waitGone(ctx context.Context, t *testing.T, jobs ...string) {
	t.Helper()
	for {
		left := ""
		for _, j := range jobs {
			if j != "" && jobState(t, j) != "" {
				left = j
			}
		}
		if left == "" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s is still queued after it was cancelled", left)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// dumpLogs logs what the jobs wrote, for a failed run.
func dumpLogs(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.out"))
	logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
	for _, f := range append(files, logs...) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		t.Logf("--- %s\n%s", f, data)
	}
}

// TestHostsPerSlice checks the scripts' count of nodes per slice (the worker
// array's --nodes) against the resource manager's.
func TestHostsPerSlice(t *testing.T) {
	for _, typ := range []string{"cpu:4", "cpu:2x2", "tpuv5e:2x2", "tpuv5e:4x4", "tpuv5e:16x16", "tpuv5e1t:2x4",
		"tpuv6e:2x4", "tpuv6e1t:2x4", "tpuv4:2x2x1", "tpuv4:2x2x4", "tpuv5:4x4x8_untwisted", "tpu7x:2x2x1", "tpu7x:4x4x4", "gpu:1", "gpu:8"} {
		it, err := rm.ParseInstanceType(typ)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", `. ./pathways-common.sh && hosts_per_slice`)
		cmd.Env = append(os.Environ(), "INSTANCE_TYPE="+typ, "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hosts_per_slice for %s: %v: %s", typ, err, out)
		}
		if got := strings.TrimSpace(string(out)); got != strconv.Itoa(it.Hosts) {
			t.Errorf("hosts_per_slice says %s hosts for %s, the resource manager %d", got, typ, it.Hosts)
		}
	}
}
