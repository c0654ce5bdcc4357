package pjrtifrt_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt"
)

const addProgram = `module @add {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}`

// BenchmarkExecuteTiny launches a 4-element add and waits for it, through
// pjrtifrt (Execute, status future, output Delete) and through the raw pjrt
// executable and buffers underneath (Execute, event Await, Close), alternating
// in one run. It reports both latencies and their ratio (ifrt/pjrt).
func BenchmarkExecuteTiny(b *testing.B) {
	for _, p := range cpuPlugins {
		b.Run(p.Name, func(b *testing.B) {
			c := p.client(b, 1)
			ctx := context.Background()
			exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(addProgram)}, nil)
			if err != nil {
				b.Fatal(err)
			}
			s := ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")
			x := put(b, c, make([]byte, 16), ifrt.F32, ifrt.Shape{4}, s)
			y := put(b, c, make([]byte, 16), ifrt.F32, ifrt.Shape{4}, s)
			var px *pjrt.Executable
			var xb, yb []*pjrt.Buffer
			if !exe.As(&px) || !x.As(&xb) || !y.As(&yb) {
				b.Fatal("As failed")
			}
			args := []ifrt.Array{x, y}
			opts := &ifrt.ExecuteOptions{FillStatus: true}
			viaIFRT := func() {
				res, err := exe.Execute(ctx, args, opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := res.Status.Await(ctx); err != nil {
					b.Fatal(err)
				}
				res.Outputs[0].Delete()
			}
			rows := [][]*pjrt.Buffer{{xb[0], yb[0]}}
			viaPJRT := func() {
				outs, events, err := px.Execute(ctx, rows, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := events[0].Await(ctx); err != nil {
					b.Fatal(err)
				}
				_ = events[0].Close()
				_ = outs[0][0].Close()
			}
			for range 100 {
				viaIFRT()
				viaPJRT()
			}
			var tIFRT, tPJRT time.Duration
			b.ResetTimer()
			for b.Loop() {
				t0 := time.Now()
				viaIFRT()
				t1 := time.Now()
				viaPJRT()
				tPJRT += time.Since(t1)
				tIFRT += t1.Sub(t0)
			}
			n := float64(b.N)
			b.ReportMetric(float64(tIFRT.Nanoseconds())/n, "ns/ifrt-exec")
			b.ReportMetric(float64(tPJRT.Nanoseconds())/n, "ns/pjrt-exec")
			b.ReportMetric(float64(tIFRT)/float64(tPJRT), "ifrt/pjrt")
		})
	}
}
