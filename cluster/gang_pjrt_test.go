package cluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// pjrtCluster is 2 slices of 4 devices whose workers run XLA's CPU PJRT
// plugin, which runs no program over several processes: programs spanning
// the workers run on the workers' host interpreters.
type pjrtCluster struct {
	*localtest.Cluster
	logs *testenv.SyncBuffer

	mu       sync.Mutex
	backends []*pjrtifrt.Client // every worker's, restarted ones too
}

func startPJRTCluster(t testing.TB) *pjrtCluster {
	t.Helper()
	path := os.Getenv("PATHWAYS_PJRT_LAMMPS_PLUGIN")
	if path == "" {
		path = filepath.Join(testenv.ModuleRoot(), ".plugins", "lammps_cpu.so")
	}
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(t, testenv.RequirePluginsVar, "PJRT CPU plugin not found at "+path+" (set PATHWAYS_PJRT_LAMMPS_PLUGIN or run scripts/setup_plugins.sh)")
	}
	pc := &pjrtCluster{logs: &testenv.SyncBuffer{}}
	pc.Cluster = startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true,
		Logger: slog.New(slog.NewTextHandler(pc.logs, nil)),
		NewBackend: func(int) (ifrt.Client, error) {
			ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
			defer cancel()
			c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: path, Devices: 4})
			if errors.Is(err, pjrt.ErrCgoUnavailable) {
				t.Skip("built without cgo")
			}
			if err == nil {
				pc.mu.Lock()
				pc.backends = append(pc.backends, c)
				pc.mu.Unlock()
			}
			return c, err
		}})
	return pc
}

// liveArrays counts the arrays the workers' PJRT clients hold, waiting a
// while for deletes still on their way to the workers to reach zero.
func (pc *pjrtCluster) liveArrays() int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		pc.mu.Lock()
		for _, b := range pc.backends {
			a, _ := b.Live()
			n += a
		}
		pc.mu.Unlock()
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestGangOnPJRTWorkers runs JAX's shard_map psum programs and auto-sharded
// programs over devices of both PJRT workers: the results match JAX's and
// the same programs on one gocpu client of 8 devices, and each worker says
// once per program that it runs it on its host interpreter (shard_map) or
// whole on its plugin (auto-sharded), and says nothing of a program over its
// own devices, which its plugin runs as usual.
func TestGangOnPJRTWorkers(t *testing.T) {
	pc := startPJRTCluster(t)
	ref, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	ctx := testenv.Context(t, defaultTestTimeout)
	// The shard_map programs run on the workers' interpreters, as on the
	// gocpu client: the same bits. The auto-sharded ones run on the plugin's
	// compiled code: within the tolerance the corpus allows against JAX's.
	programs := []struct {
		name     string
		onPlugin bool
	}{{"shard_map_psum_shardy", false}, {"shard_map_psum_gspmd", false}, {"sharded_spmd_gspmd", true}, {"sharded_spmd_shardy", true}}
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			base := "../internal/stablehlo/testdata/golden/" + p.name
			js := golden.ReadFile(t, base+".json")
			got := runGolden(ctx, t, pc.Client, spread(t, pc.Client.Devices(), base), base, js)
			want := runGolden(ctx, t, ref, spread(t, ref.Devices(), base), base, js)
			var c golden.Case
			if err := json.Unmarshal(js, &c); err != nil {
				t.Fatal(err)
			}
			if !p.onPlugin {
				c.RTol, c.ATol = 0, 0
			}
			for k := range want {
				if msg := golden.Match("f32", got[k], want[k], c.RTol, c.ATol); msg != "" {
					t.Errorf("output %d on the PJRT workers against one gocpu client: %s", k, msg)
				}
			}
		})
	}
	// A program within one worker runs on its plugin, not as a gang.
	if err := runPsum(ctx, pc.Client, mustCompile(ctx, t, pc.Client, pc.Client.Devices()[4:])); err != nil {
		t.Errorf("psum over slice 1's devices: %v", err)
	}
	// The shard_map programs (collectives) run on the host interpreter, the
	// auto-sharded ones whole on the plugin.
	for _, say := range []string{"runs on the host interpreter", "runs whole on the backend"} {
		if n := strings.Count(pc.logs.String(), say); n != len(programs) {
			t.Errorf("the workers logged %d times that a program %s, want once per program of its kind and worker (%d):\n%s", n, say, len(programs), pc.logs)
		}
	}
	if n := pc.liveArrays(); n != 0 {
		t.Errorf("the workers' PJRT clients hold %d arrays after every array was deleted", n)
	}
}

// donateTwice doubles an 8-vector sharded over 8 devices, donating it.
const donateTwice = `module @donate attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[8]<=[8]}", tf.aliasing_output = 0 : i32}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`

// liveExecutables counts the executables the workers' PJRT clients hold.
func (pc *pjrtCluster) liveExecutables() int {
	n := 0
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, b := range pc.backends {
		_, e := b.Live()
		n += e
	}
	return n
}

// A spanning program on PJRT workers donates its argument: the argument is
// deleted, its shards freed on the workers' PJRT clients. The program, run
// whole on each worker's plugin, holds an executable there until it is
// deleted.
func TestGangOnPJRTWorkersDonates(t *testing.T) {
	pc := startPJRTCluster(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	before := pc.liveExecutables()
	exe, put := compileOverAll(ctx, t, pc.Client, donateTwice)
	if n := pc.liveExecutables() - before; n != 2 {
		t.Errorf("compiling the program added %d executables to the workers' plugins, want one on each of 2", n)
	}
	defer func() {
		exe.Delete()
		if n := pc.liveExecutables() - before; n != 0 {
			t.Errorf("the workers' plugins hold %d executables more after the program was deleted", n)
		}
	}()
	x := put()
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if !x.IsDeleted() || len(res.Donated) != 1 || res.Donated[0] != 0 {
		t.Errorf("after the launch the argument is deleted: %v, the result says donated %v; want true and [0]", x.IsDeleted(), res.Donated)
	}
	got := make([]byte, 32)
	if err := res.Outputs[0].CopyToHostBuffer(ctx, got, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, f32Bytes(0, 2, 4, 6, 8, 10, 12, 14)) {
		t.Errorf("the result is %v, want 2x", got)
	}
	res.Outputs[0].Delete()
	if n := pc.liveArrays(); n != 0 {
		t.Errorf("the workers' PJRT clients hold %d arrays after the donated argument and the result were deleted", n)
	}
}

// A PJRT worker killed during a loop of spanning launches fails the launch
// with DATA_LOSS, no hang; once it is back, spanning launches work again.
func TestGangOnPJRTWorkersLostParticipant(t *testing.T) {
	pc := startPJRTCluster(t)
	ctx := testenv.Context(t, defaultTestTimeout)
	all := pc.Client.Devices()
	loseParticipant(ctx, t, pc.Cluster, mustCompile(ctx, t, pc.Client, ifrt.DeviceList{all[0], all[2], all[4], all[6]}), func() {})
}

// squareBlocks is shard_map(lambda x: x * x) over 8 partitions of an
// 8n-vector: no exchange, so that a launch costs the gang protocol, the
// interpreter and, on PJRT workers, the moves through host memory.
func squareBlocks(n int) string {
	return fmt.Sprintf(`module @jit_square attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]>
  func.func public @main(%%arg0: tensor<%[1]dxf32>) -> (tensor<%[1]dxf32>) {
    %%0 = sdy.manual_computation(%%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%%arg1: tensor<%[2]dxf32>) {
      %%1 = stablehlo.multiply %%arg1, %%arg1 : tensor<%[2]dxf32>
      sdy.return %%1 : tensor<%[2]dxf32>
    } : (tensor<%[1]dxf32>) -> tensor<%[1]dxf32>
    return %%0 : tensor<%[1]dxf32>
  }
}`, 8*n, n)
}

// BenchmarkGangOnPJRT measures one launch of squareBlocks over 2 workers of
// 4 devices, with blocks of 4 KiB and 1 MiB, on gocpu workers and on PJRT CPU
// workers (whose partitions move through host memory), and reports the PJRT
// launch against the gocpu one of the same size, measured in the same run.
func BenchmarkGangOnPJRT(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 18} {
		var onGocpu time.Duration
		for _, backend := range []string{"gocpu", "pjrt"} {
			b.Run(fmt.Sprintf("block=%dKiB/backend=%s", 4*n>>10, backend), func(b *testing.B) {
				ctx := context.Background()
				var c ifrt.Client
				if backend == "pjrt" {
					c = startPJRTCluster(b).Client
				} else {
					c = startLocal(b, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true}).Client
				}
				devs := c.Devices()
				exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(squareBlocks(n))}, &ifrt.CompileOptions{Devices: devs})
				if err != nil {
					b.Fatal(err)
				}
				defer exe.Delete()
				s, err := ifrt.NewTiledSharding(devs, 8)
				if err != nil {
					b.Fatal(err)
				}
				x, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 32*n), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{int64(8 * n)}, Sharding: s}, nil)
				if err != nil {
					b.Fatal(err)
				}
				defer x.Delete()
				per := perLaunch(ctx, b, exe, x)
				b.ReportMetric(float64(per.Microseconds()), "us/launch")
				if backend == "gocpu" {
					onGocpu = per
				} else if onGocpu > 0 {
					b.ReportMetric(float64(per)/float64(onGocpu), "x-gocpu")
				}
			})
		}
	}
}
