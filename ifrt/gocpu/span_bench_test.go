package gocpu_test

import (
	"context"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// BenchmarkSpanAutoSharded measures what the spanning strategy costs an
// auto-sharded program: a 256x256 matmul with its left operand sharded by
// rows over 8 devices, run once as the global program (Execute on one
// client) and as 8 partitions of a SpanExecutable (each gathers the
// operand, runs the whole program and keeps its block), all in one client
// so that only the strategy differs. It reports the ratio of their times.
func BenchmarkSpanAutoSharded(b *testing.B) {
	const src = `module attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<256x256xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %w: tensor<256x256xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<256x256xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) {
    %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
    return %0 : tensor<256x256xf32>
  }
}`
	ctx := context.Background()
	c, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	program := &ifrt.MLIRProgram{Module: []byte(src)}
	exe, err := c.Compile(ctx, program, nil)
	if err != nil {
		b.Fatal(err)
	}
	span, err := c.CompileSpan(ctx, program, exe.Devices().IDs())
	if err != nil {
		b.Fatal(err)
	}
	var args []ifrt.Array
	blocks := make([][]ifrt.Array, len(exe.Parameters()))
	for i, p := range exe.Parameters() {
		s, err := ifrt.NewHloSharding(exe.Devices(), "", *p.OpSharding)
		if err != nil {
			b.Fatal(err)
		}
		a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 4*p.Shape.NumElements()), ifrt.ArraySpec{DType: p.DType, Shape: p.Shape, Sharding: s}, nil)
		if err != nil {
			b.Fatal(err)
		}
		args = append(args, a)
		if blocks[i], err = c.DisassembleArray(ctx, a, ifrt.AlwaysCopy); err != nil {
			b.Fatal(err)
		}
	}
	var global, spanned time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		res, err := exe.Execute(ctx, args, nil)
		if err != nil {
			b.Fatal(err)
		}
		global += time.Since(start)
		start = time.Now()
		outs, err := span.Execute(ctx, blocks, nil)
		if err != nil {
			b.Fatal(err)
		}
		spanned += time.Since(start)
		res.Outputs[0].Delete()
		for _, o := range outs[0] {
			o.Delete()
		}
	}
	b.ReportMetric(float64(global.Microseconds())/float64(b.N), "global-µs/op")
	b.ReportMetric(float64(spanned.Microseconds())/float64(b.N), "span-µs/op")
	b.ReportMetric(float64(spanned)/float64(global), "x-of-global")
}
