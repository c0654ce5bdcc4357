package stablehlo

import (
	"context"
	"testing"
)

// BenchmarkSmallOpLoop measures per-op overhead: a 10,000-step while loop
// of scalar arithmetic, where dispatch rather than data dominates.
func BenchmarkSmallOpLoop(b *testing.B) {
	m := mustParse(b, `func.func @main(%n: tensor<i32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %f = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %z, %acc = %f) : tensor<i32>, tensor<f32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.multiply %acc, %half : tensor<f32>
    %b = stablehlo.add %a, %half : tensor<f32>
    stablehlo.return %i2, %b : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}`)
	n := literal(b, "tensor<i32>", "10000")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Run(context.Background(), []*Tensor{n}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(10000*6), "ns/op-executed")
}
