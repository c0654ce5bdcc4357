package stablehlo

import (
	"context"
	"testing"
)

// BenchmarkSmallOpLoop measures per-op overhead: a 10,000-step while loop
// of scalar arithmetic, where dispatch rather than data dominates.
func BenchmarkSmallOpLoop(b *testing.B) {
	m := mustParse(b, scalarLoop)
	n := literal(b, "tensor<i32>", "10000")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Run(context.Background(), []*Tensor{n}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(10000*7), "ns/op-executed")
}
