package cluster_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

const tiny = `module @tiny attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %x, %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

// deviceTime stands for the time a real accelerator spends on the tiny program:
// the worker's backend holds each execution this long without using a CPU, so that
// the benchmark measures how the client overlaps workers, not how 64 in-process
// workers share this machine's 2 cores.
const deviceTime = 5 * time.Millisecond

// slowDevice is gocpu whose executions take deviceTime longer.
type slowDevice struct{ *gocpu.Client }

func (c slowDevice) Compile(ctx context.Context, p ifrt.Program, opts *ifrt.CompileOptions) (ifrt.LoadedExecutable, error) {
	exe, err := c.Client.Compile(ctx, p, opts)
	return slowExecutable{exe}, err
}

type slowExecutable struct{ ifrt.LoadedExecutable }

func (e slowExecutable) Execute(ctx context.Context, args []ifrt.Array, opts *ifrt.ExecuteOptions) (*ifrt.ExecuteResult, error) {
	time.Sleep(deviceTime)
	return e.LoadedExecutable.Execute(ctx, args, opts)
}

// BenchmarkDispatch measures one step that runs a tiny program on each of W
// workers, dispatched by the client in parallel. It reports the step time against
// the time of the same step on one worker, measured in the same run: with parallel
// dispatch the ratio grows far slower than W.
func BenchmarkDispatch(b *testing.B) {
	for _, w := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			ctx := context.Background()
			l, err := local.Start(ctx, local.Config{
				Slices: w, DevicesPerSlice: 1, NoProxy: true, Logger: quietLogger(),
				NewBackend: func(int) (ifrt.Client, error) {
					c, err := gocpu.New(gocpu.Config{Devices: 1})
					return slowDevice{c}, err
				},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			c := l.Client
			exes := make([]ifrt.LoadedExecutable, w)
			args := make([]ifrt.Array, w)
			for i, d := range c.Devices() {
				if exes[i], err = c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(tiny)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{d}}); err != nil {
					b.Fatal(err)
				}
				if args[i], err = c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2, 3, 4), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(d, "")}, nil); err != nil {
					b.Fatal(err)
				}
			}
			step := func(n int) error {
				var wg sync.WaitGroup
				errs := make([]error, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err := exes[i].Execute(ctx, []ifrt.Array{args[i]}, nil)
						if err == nil {
							err = res.Outputs[0].Ready().Await(ctx)
							res.Outputs[0].Delete()
						}
						errs[i] = err
					}()
				}
				wg.Wait()
				for _, err := range errs {
					if err != nil {
						return err
					}
				}
				return nil
			}
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if err := step(w); err != nil {
					b.Fatal(err)
				}
			}
			perStep := time.Since(start) / time.Duration(b.N)
			b.StopTimer()
			oneStart := time.Now()
			for range b.N {
				if err := step(1); err != nil {
					b.Fatal(err)
				}
			}
			perOne := time.Since(oneStart) / time.Duration(b.N)
			ratio := float64(perStep) / float64(perOne)
			b.ReportMetric(ratio, "x-one-worker-step")
			b.ReportMetric(float64(w)/ratio, "parallel-speedup")
		})
	}
}
