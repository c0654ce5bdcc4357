package cluster_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
)

// tinyManual is shard_map(lambda x: x * x) over w partitions of a w-vector:
// one element per partition and no exchange, so that a launch costs only
// the gang protocol.
func tinyManual(w int) string {
	return fmt.Sprintf(`module @jit_tiny attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=%[1]d]>
  func.func public @main(%%arg0: tensor<%[1]dxf32>) -> (tensor<%[1]dxf32>) {
    %%0 = sdy.manual_computation(%%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%%arg1: tensor<1xf32>) {
      %%1 = stablehlo.multiply %%arg1, %%arg1 : tensor<1xf32>
      sdy.return %%1 : tensor<1xf32>
    } : (tensor<%[1]dxf32>) -> tensor<%[1]dxf32>
    return %%0 : tensor<%[1]dxf32>
  }
}`, w)
}

// BenchmarkGangLaunch measures one launch of a tiny program over W
// in-process workers of one device each (W = 1 runs on one worker, without
// the gang protocol) and reports it against W = 1, measured in the same run.
// A gang launch costs the RM's sequence numbers and one message each way on
// each worker's launch stream.
func BenchmarkGangLaunch(b *testing.B) {
	var one time.Duration
	for _, w := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			ctx := context.Background()
			l, err := local.Start(ctx, local.Config{Slices: w, DevicesPerSlice: 1, NoProxy: true, Logger: quietLogger()})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			c := l.Client
			devs := c.Devices()
			exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(tinyManual(w))}, &ifrt.CompileOptions{Devices: devs})
			if err != nil {
				b.Fatal(err)
			}
			s, err := ifrt.NewTiledSharding(devs, int64(w))
			if err != nil {
				b.Fatal(err)
			}
			x, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 4*w), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{int64(w)}, Sharding: s}, nil)
			if err != nil {
				b.Fatal(err)
			}
			per := perLaunch(ctx, b, exe, x)
			if w == 1 {
				one = per
			}
			b.ReportMetric(float64(per.Microseconds()), "us/launch")
			if one > 0 {
				b.ReportMetric(float64(per)/float64(one), "x-W1")
			}
		})
	}
}

// perLaunch runs exe on args once to warm up (connections, first loads),
// then b.N times, and returns the time of one launch until its first output
// is ready. Outputs are released as the proxy server frees the arrays JAX
// drops: no future, the workers' deletions batched.
func perLaunch(ctx context.Context, b *testing.B, exe ifrt.LoadedExecutable, args ...ifrt.Array) time.Duration {
	b.Helper()
	launch := func() {
		res, err := exe.Execute(ctx, args, nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := res.Outputs[0].Ready().Await(ctx); err != nil {
			b.Fatal(err)
		}
		for _, o := range res.Outputs {
			backend.Release(o)
		}
	}
	launch()
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		launch()
	}
	return time.Since(start) / time.Duration(b.N)
}
