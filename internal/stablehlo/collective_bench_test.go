package stablehlo

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// BenchmarkAllReduce64MiB sums 64 MiB of f32 across 2 and 8 in-process
// partitions (RunProcesses over a LocalGroup) and copies 64 MiB with copy()
// in the same run; it reports both rates (64 MiB over the time taken) and
// their ratio. The all-reduce is a reduce-scatter then an all-gather: each
// partition reads every other's 1/P of the input and writes the whole
// result into new memory, so P partitions move about 2·P times 64 MiB, on
// however many cores there are.
func BenchmarkAllReduce64MiB(b *testing.B) {
	for _, partitions := range []int{2, 8} {
		b.Run(fmt.Sprintf("partitions=%d", partitions), func(b *testing.B) { benchmarkAllReduce(b, partitions) })
	}
}

func benchmarkAllReduce(b *testing.B, partitions int) {
	const n = 64 << 20 / 4
	groups := make([]string, partitions)
	for i := range groups {
		groups[i] = fmt.Sprint(i)
	}
	m := mustParse(b, fmt.Sprintf(`module attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%dxf32>) -> tensor<%dxf32> {
    %%r = "stablehlo.all_reduce"(%%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[%s]]> : tensor<1x%dxi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.add %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%dxf32>) -> tensor<%dxf32>
    return %%r : tensor<%dxf32>
  }
}`, partitions, n, n, strings.Join(groups, ", "), partitions, n, n, n))
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
