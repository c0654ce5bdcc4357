package cluster_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// autoSharded is x*x+x over f32[n], sharded over p partitions and
// auto-sharded (no collectives): a program spanning workers runs it the
// simple way, each worker gathering x and computing it whole.
func autoSharded(p, n int) string {
	return fmt.Sprintf(`module @auto attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%x: tensor<%[2]dxf32> {mhlo.sharding = "{devices=[%[1]d]<=[%[1]d]}"}) -> (tensor<%[2]dxf32> {mhlo.sharding = "{devices=[%[1]d]<=[%[1]d]}"}) {
    %%0 = stablehlo.multiply %%x, %%x : tensor<%[2]dxf32>
    %%1 = stablehlo.add %%0, %%x : tensor<%[2]dxf32>
    return %%1 : tensor<%[2]dxf32>
  }
}`, p, n)
}

// BenchmarkAutoShardedSpanning runs an auto-sharded program of 4 KiB (a
// tiny step) and of 16 MiB over the 8 devices of two slices (two workers of
// 4 devices) and over the 4 devices of one, in one run, and reports the
// spanning run's time as a multiple of the one-slice run's, the best of
// each. Each worker runs the global program once for its 4 partitions (it
// ran it 4 times before).
func BenchmarkAutoShardedSpanning(b *testing.B) {
	l := startLocal(b, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	for _, n := range []int{1 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("%dKiB", 4*n>>10), func(b *testing.B) {
			benchmarkAutoSharded(b, l.Client, n, func(p int) string { return autoSharded(p, n) })
		})
	}
}

// matmulChain is tanh(a·a)·a for the n×n matrix a whose rows x holds (a
// flat f32[n·n], sharded over p partitions), auto-sharded.
func matmulChain(p, n int) string {
	return fmt.Sprintf(`module @chain attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%x: tensor<%[2]dxf32> {mhlo.sharding = "{devices=[%[1]d]<=[%[1]d]}"}) -> (tensor<%[2]dxf32> {mhlo.sharding = "{devices=[%[1]d]<=[%[1]d]}"}) {
    %%a = stablehlo.reshape %%x : (tensor<%[2]dxf32>) -> tensor<%[3]dx%[3]dxf32>
    %%0 = stablehlo.dot_general %%a, %%a, contracting_dims = [1] x [0] : (tensor<%[3]dx%[3]dxf32>, tensor<%[3]dx%[3]dxf32>) -> tensor<%[3]dx%[3]dxf32>
    %%1 = stablehlo.tanh %%0 : tensor<%[3]dx%[3]dxf32>
    %%2 = stablehlo.dot_general %%1, %%a, contracting_dims = [1] x [0] : (tensor<%[3]dx%[3]dxf32>, tensor<%[3]dx%[3]dxf32>) -> tensor<%[3]dx%[3]dxf32>
    %%3 = stablehlo.reshape %%2 : (tensor<%[3]dx%[3]dxf32>) -> tensor<%[2]dxf32>
    return %%3 : tensor<%[2]dxf32>
  }
}`, p, n*n, n)
}

// BenchmarkAutoShardedSpanningOnPJRT runs a 512×512 matmul chain,
// auto-sharded, over the 8 devices of two PJRT-plugin workers and over the 4
// devices of one, in one run, and reports the spanning run's time as a
// multiple of the one-slice run's, the best of each. Over one worker the
// plugin partitions and runs it; spanning, each worker gathers the matrix
// and runs the program whole on its plugin (on its host interpreter before).
func BenchmarkAutoShardedSpanningOnPJRT(b *testing.B) {
	c := startPJRTCluster(b).Client
	const n = 512
	benchmarkAutoSharded(b, c, n*n, func(p int) string { return matmulChain(p, n) })
}

func benchmarkAutoSharded(b *testing.B, c *cluster.Client, n int, program func(partitions int) string) {
	ctx := context.Background()
	all := c.Devices()
	setup := func(devs ifrt.DeviceList) (ifrt.LoadedExecutable, ifrt.Array) {
		exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(program(len(devs)))}, &ifrt.CompileOptions{Devices: devs})
		if err != nil {
			b.Fatal(err)
		}
		s, err := ifrt.NewTiledSharding(devs, int64(len(devs)))
		if err != nil {
			b.Fatal(err)
		}
		values := make([]float32, n)
		for i := range values {
			values[i] = float32(i % 97)
		}
		x, err := ifrt.MakeArrayFromSlice(ctx, c, values, ifrt.Shape{int64(n)}, s)
		if err != nil {
			b.Fatal(err)
		}
		return exe, x
	}
	run := func(exe ifrt.LoadedExecutable, x ifrt.Array) time.Duration {
		start := time.Now()
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Outputs[0].Ready().Await(ctx); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		res.Outputs[0].Delete()
		return d
	}
	spanExe, spanX := setup(all)
	oneExe, oneX := setup(all[:4])
	spanning, one := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		spanning = min(spanning, run(spanExe, spanX))
		one = min(one, run(oneExe, oneX))
	}
	b.ReportMetric(float64(spanning.Microseconds()), "spanning-µs")
	b.ReportMetric(float64(spanning)/float64(one), "x-of-one-slice")
}
