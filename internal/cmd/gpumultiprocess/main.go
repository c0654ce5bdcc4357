// Command gpumultiprocess checks the CUDA PJRT plugin as a multi-process
// client on a machine with one NVIDIA GPU; scripts/gpu_multiprocess.sh builds
// and runs it. It prints what it measured, one "name: value" line each, and
// exits non-zero if any part below failed.
//
//  1. Two worker processes (this program started twice) are processes 0 and 1
//     of one pjrtifrt client (node_id/num_nodes 2, both on GPU 0), sharing a
//     key-value store in a directory: the plugin exchanges its topology
//     through the key-value callbacks during creation, and each process then
//     lists both processes' devices. A one-device program runs on each. Real
//     NCCL cannot put two ranks of one program on one GPU, so no spanning
//     program runs here.
//  2. The same with two clients in this process sharing a
//     pjrt.MemoryKeyValueStore.
//  3. Mock NCCL: one client with enable_mock_nccl and num_nodes 2 is node 0 of
//     a two-node topology that XLA mocks (its collectives do nothing, its
//     key-value store is XLA's own): a two-partition program with an
//     all-reduce over the devices of both nodes compiles and launches on the
//     one real device.
//
// With a CPU plugin (the 0.115 XLA CPU plugin takes "process_id") parts 1
// and 2 run as well, which checks the program itself without a GPU.
//
// Usage: gpumultiprocess <xla_cuda_plugin.so>
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

const addProgram = `module @add {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

// allReduceProgram sums its argument over the two partitions.
const allReduceProgram = `module @allreduce attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.all_reduce"(%arg0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

// childEnv marks a worker process started by part 1: "<index> <kv dir>".
const childEnv = "GPUMULTIPROCESS_CHILD"

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gpumultiprocess <xla_cuda_plugin.so>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if child := os.Getenv(childEnv); child != "" {
		if err := runChild(ctx, os.Args[1], child); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Args[1]); err != nil {
		fmt.Println("FAILED:", err)
		os.Exit(1)
	}
	fmt.Println("result: ok")
}

// out receives the report (tests capture it).
var out io.Writer = os.Stdout

func report(name string, v any) { fmt.Fprintf(out, "%s: %v\n", name, v) }

func run(ctx context.Context, path string) error {
	p, err := pjrt.Load(path)
	if err != nil {
		return err
	}
	major, minor := p.Version()
	report("plugin", p.Path())
	report("pjrt_api", fmt.Sprintf("%d.%d", major, minor))
	attrs := p.Attributes()
	report("cuda_version", attrs["cuda_version"])
	report("xla_version", attrs["xla_version"])
	// Each part runs whatever the others did.
	failed := 0
	for _, part := range []struct {
		name string
		run  func(context.Context, *pjrt.Plugin) error
	}{{"two_worker_processes", twoWorkerProcesses}, {"two_clients", twoClients}, {"mock_nccl", mockNCCL}} {
		if err := part.run(ctx, p); err != nil {
			report(part.name+".error", err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of 3 parts failed", failed)
	}
	return nil
}

// twoWorkerProcesses starts this program twice as processes 0 and 1 and
// prints what each reported.
func twoWorkerProcesses(ctx context.Context, p *pjrt.Plugin) error {
	dir, err := os.MkdirTemp("", "gpumultiprocess-kv-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start := time.Now()
	outs := make([][]byte, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, self, p.Path())
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %s", childEnv, i, dir))
			outs[i], errs[i] = cmd.Output()
		})
	}
	wg.Wait()
	report("two_worker_processes.seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	for i, o := range outs {
		for _, line := range strings.Split(strings.TrimSpace(string(o)), "\n") {
			fmt.Fprintf(out, "two_worker_processes.process%d.%s\n", i, line)
		}
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("process %d: %w", i, err)
		}
	}
	return nil
}

// runChild is one worker process of part 1.
func runChild(ctx context.Context, path, spec string) error {
	idx, dir, ok := strings.Cut(spec, " ")
	i, err := strconv.Atoi(idx)
	if !ok || err != nil {
		return fmt.Errorf("%s=%q: want \"<index> <dir>\"", childEnv, spec)
	}
	p, err := pjrt.Load(path)
	if err != nil {
		return err
	}
	start := time.Now()
	c, err := pjrtifrt.New(ctx, pjrtifrt.Config{Plugin: p, CreateOptions: createOptions(p),
		Process: pjrtifrt.Process{Index: i, Count: 2, KeyValueStore: dirStore{dir}}})
	if err != nil {
		return err
	}
	defer c.Close()
	report("create_seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	return checkProcess(ctx, c, i, "")
}

// createOptions let several clients share the one GPU (the CPU plugins get
// two devices).
func createOptions(p *pjrt.Plugin) map[string]any {
	if _, cuda := p.Attributes()["cuda_version"]; !cuda {
		return map[string]any{"cpu_device_count": int64(2)}
	}
	return map[string]any{"platform_name": "cuda", "preallocate": false, "memory_fraction": float32(0.2)}
}

// countingStore counts the plugin's calls per operation and key prefix.
type countingStore struct {
	pjrt.MemoryKeyValueStore
	mu   sync.Mutex
	keys map[string]int
}

func (s *countingStore) note(op, key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]int{}
	}
	if i := strings.LastIndexAny(key, "/:"); i > 0 {
		key = key[:i+1] + "…"
	}
	s.keys[op+" "+key]++
}

func (s *countingStore) Get(ctx context.Context, key string, timeout time.Duration) ([]byte, error) {
	s.note("get", key)
	return s.MemoryKeyValueStore.Get(ctx, key, timeout)
}

func (s *countingStore) TryGet(ctx context.Context, key string) ([]byte, error) {
	s.note("try_get", key)
	return s.MemoryKeyValueStore.TryGet(ctx, key)
}

func (s *countingStore) Put(ctx context.Context, key string, value []byte) error {
	s.note("put", key)
	return s.MemoryKeyValueStore.Put(ctx, key, value)
}

func twoClients(ctx context.Context, p *pjrt.Plugin) error {
	kv := &countingStore{}
	clients := make([]*pjrtifrt.Client, 2)
	errs := make([]error, 2)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range clients {
		wg.Go(func() {
			clients[i], errs[i] = pjrtifrt.New(ctx, pjrtifrt.Config{Plugin: p, CreateOptions: createOptions(p),
				Process: pjrtifrt.Process{Index: i, Count: 2, KeyValueStore: kv}})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("process %d: %w", i, err)
		}
		defer clients[i].Close()
	}
	report("two_clients.create_seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	kv.mu.Lock()
	var calls []string
	for k, n := range kv.keys {
		calls = append(calls, fmt.Sprintf("%s x%d", k, n))
	}
	kv.mu.Unlock()
	sort.Strings(calls)
	report("two_clients.kv_calls", strings.Join(calls, "; "))
	for i, c := range clients {
		if err := checkProcess(ctx, c, i, fmt.Sprintf("two_clients.process%d.", i)); err != nil {
			return fmt.Errorf("process %d: %w", i, err)
		}
	}
	return nil
}

// checkProcess reports the devices and key-value calls of process i's
// client, runs a program on its device, and tries one over both processes'.
func checkProcess(ctx context.Context, c *pjrtifrt.Client, i int, prefix string) error {
	var devs []string
	for _, d := range c.Devices() {
		devs = append(devs, fmt.Sprintf("id=%d process=%d addressable=%v kind=%q", d.ID, d.ProcessIndex, d.Addressable, d.Kind))
	}
	report(prefix+"devices", strings.Join(devs, ", "))
	report(prefix+"kv_callbacks", c.PJRT().KeyValueCalls())
	local := len(c.AddressableDevices())
	if len(c.Devices()) != 2*local || local == 0 || c.Platform().ProcessIndex != i {
		return fmt.Errorf("%d devices, %d addressable, process index %d; want twice as many devices as addressable ones, process %d",
			len(c.Devices()), local, c.Platform().ProcessIndex, i)
	}
	got, secs, err := runAdd(ctx, c)
	if err != nil {
		return err
	}
	report(prefix+"add", fmt.Sprintf("%v in %.1f µs (median of 20)", got, secs*1e6))
	// The spanning compile is refused with a clear code, not a crash.
	devices := ifrt.DeviceList{c.AddressableDevices()[0]}
	for _, d := range c.Devices() {
		if !d.Addressable {
			devices = append(devices, d)
			break
		}
	}
	_, err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(allReduceProgram)}, &ifrt.CompileOptions{Devices: devices})
	report(prefix+"spanning_compile", fmt.Sprintf("%v: %v", ifrt.CodeOf(err), err))
	return nil
}

// runAdd runs x+x on the client's device and times it.
func runAdd(ctx context.Context, c *pjrtifrt.Client) ([]float32, float64, error) {
	dev := c.AddressableDevices()[:1]
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(addProgram)}, &ifrt.CompileOptions{Devices: dev})
	if err != nil {
		return nil, 0, err
	}
	defer exe.Delete()
	s := &ifrt.HloSharding{DeviceList: dev, Spec: ifrt.Replicated()}
	a, err := c.MakeArrayFromHostBuffer(ctx, f32s(1, 2, 3, 4), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: s}, nil)
	if err != nil {
		return nil, 0, err
	}
	defer a.Delete()
	var times []float64
	var out []byte
	for range 20 {
		t := time.Now()
		res, err := exe.Execute(ctx, []ifrt.Array{a}, nil)
		if err != nil {
			return nil, 0, err
		}
		out = make([]byte, 16)
		if err := res.Outputs[0].CopyToHostBuffer(ctx, out, nil); err != nil {
			return nil, 0, err
		}
		times = append(times, time.Since(t).Seconds())
		res.Outputs[0].Delete()
	}
	slices.Sort(times)
	return floats(out), times[len(times)/2], nil
}

func mockNCCL(ctx context.Context, p *pjrt.Plugin) error {
	opts := createOptions(p)
	opts["enable_mock_nccl"] = true
	opts["num_nodes"] = int64(2)
	opts["node_id"] = int64(0)
	start := time.Now()
	c, err := p.NewClient(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	report("mock_nccl.create_seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	var ids []int
	var devs []string
	for _, d := range c.Devices() {
		ids = append(ids, d.ID())
		devs = append(devs, fmt.Sprintf("id=%d process=%d addressable=%v", d.ID(), d.ProcessIndex(), d.Addressable()))
	}
	report("mock_nccl.devices", strings.Join(devs, ", "))
	if len(ids) < 2 || len(c.AddressableDevices()) != 1 {
		return fmt.Errorf("%d devices, %d addressable; want 2 and 1", len(ids), len(c.AddressableDevices()))
	}
	o := pjrt.CompileOptions{NumPartitions: 2, UseSPMDPartitioning: true, DeviceAssignment: [][]int{ids[:2]}}
	start = time.Now()
	x, err := c.Compile(ctx, []byte(allReduceProgram), "mlir", o.Marshal())
	if err != nil {
		return fmt.Errorf("compiling the all-reduce over devices %v: %w", ids[:2], err)
	}
	defer x.Close()
	report("mock_nccl.compile_seconds", fmt.Sprintf("%.2f", time.Since(start).Seconds()))
	report("mock_nccl.executable_devices", len(x.AddressableDevices()))
	a, err := c.BufferFromHost(ctx, f32s(1, 2, 3, 4), pjrt.F32, []int64{4}, &pjrt.HostBufferOptions{Device: c.AddressableDevices()[0]})
	if err != nil {
		return err
	}
	defer a.Close()
	var times []float64
	var out []byte
	for range 20 {
		t := time.Now()
		outs, events, err := x.Execute(ctx, [][]*pjrt.Buffer{{a}}, nil)
		if err != nil {
			return fmt.Errorf("launching on the local device: %w", err)
		}
		for _, e := range events {
			if err := e.Await(ctx); err != nil {
				return err
			}
			e.Close()
		}
		out = make([]byte, 16)
		if err := outs[0][0].ToHost(ctx, out); err != nil {
			return err
		}
		times = append(times, time.Since(t).Seconds())
		outs[0][0].Close()
	}
	slices.Sort(times)
	report("mock_nccl.all_reduce_output", fmt.Sprintf("%v (collectives are mocked: no data moves)", floats(out)))
	report("mock_nccl.launch_seconds_median", fmt.Sprintf("%.6f", times[len(times)/2]))
	return nil
}

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
