package stablehlo

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"
)

// BenchmarkAllReduce64MiB sums 64 MiB of f32 across 8 in-process partitions
// (RunProcesses over a LocalGroup) and copies 64 MiB with copy() in the same
// run; it reports both rates and their ratio. An all-reduce must at least
// read every partition's input and write every partition's result, so 8
// partitions on few cores reach a fraction of one copy's rate.
func BenchmarkAllReduce64MiB(b *testing.B) {
	const partitions = 8
	const n = 64 << 20 / 4
	m := mustParse(b, fmt.Sprintf(`module attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%dxf32>) -> tensor<%dxf32> {
    %%r = "stablehlo.all_reduce"(%%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.add %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%dxf32>) -> tensor<%dxf32>
    return %%r : tensor<%dxf32>
  }
}`, partitions, n, n, n, n, n))
	rng := rand.New(rand.NewSource(1))
	args := make([][]*Tensor, partitions)
	for p := range args {
		t, _ := randomF32Tensor(rng, n)
		args[p] = []*Tensor{t}
	}
	src, dst := args[0][0].Data, make([]byte, 4*n)
	copy(dst, src)
	ctx := context.Background()
	bestReduce, bestCopy := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := m.RunProcesses(ctx, args); err != nil {
			b.Fatal(err)
		}
		bestReduce = min(bestReduce, time.Since(start))
		b.StopTimer()
		start = time.Now()
		copy(dst, src)
		bestCopy = min(bestCopy, time.Since(start))
		b.StartTimer()
	}
	mib := func(d time.Duration) float64 { return 64 / d.Seconds() }
	b.ReportMetric(mib(bestReduce), "allreduce-MiB/s")
	b.ReportMetric(mib(bestCopy), "memcpy-MiB/s")
	b.ReportMetric(float64(bestCopy)/float64(bestReduce), "x-of-memcpy")
}
