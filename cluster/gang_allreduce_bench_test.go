package cluster_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
)

// BenchmarkGangAllReduce64MiB sums 64 MiB of f32 across 2 in-process
// workers of one device each (their all_reduce streams over the workers'
// peer connection on loopback, as between processes; examples/e2e's
// TestGangAllReduceAcrossProcesses measures it between processes) and
// copies 64 MiB with copy() in the same run, reporting the all-reduce's
// share of memcpy's rate, the best of each. Here a profile sees both workers.
func BenchmarkGangAllReduce64MiB(b *testing.B) {
	const n = 64 << 20 / 4
	l := startLocal(b, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
	ctx := context.Background()
	exe, x := communicatortest.ReplicatedAllReduce(ctx, b, l.Client, n, 4093)
	data, dst := make([]byte, 4*n), make([]byte, 4*n)
	copy(dst, data)
	reduce, memcpy := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		start := time.Now()
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			b.Fatal(err)
		}
		reduce = min(reduce, time.Since(start))
		res.Outputs[0].Delete()
		start = time.Now()
		copy(dst, data)
		memcpy = min(memcpy, time.Since(start))
	}
	b.ReportMetric(float64(memcpy)/float64(reduce), "x-of-memcpy")
}

// BenchmarkGangAllReduce64KiB sums 64 KiB of f32 over 8 devices: once on
// one worker of 8 devices, then across 2 workers of 4 (32 of the 56
// ordered pairs of partitions cross between the workers), and reports the
// spanning launch against the single-worker one measured in the same run.
// Small collectives across workers cost what the exchange protocol adds per
// launch: streams opened, frames, wake-ups.
func BenchmarkGangAllReduce64KiB(b *testing.B) {
	var one time.Duration
	for _, c := range []struct {
		name     string
		slices   int
		perSlice int
	}{{"1 worker of 8", 1, 8}, {"2 workers of 4", 2, 4}} {
		b.Run(c.name, func(b *testing.B) {
			l := startLocal(b, local.Config{Slices: c.slices, DevicesPerSlice: c.perSlice, NoProxy: true})
			ctx := context.Background()
			exe, x := communicatortest.ReplicatedAllReduce(ctx, b, l.Client, 16<<10, 4093)
			per := perLaunch(ctx, b, exe, x)
			if c.slices == 1 {
				one = per
			}
			b.ReportMetric(float64(per.Microseconds()), "us/launch")
			if one > 0 {
				b.ReportMetric(float64(per)/float64(one), "x-one-worker")
			}
		})
	}
}
