package stablehlo

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// BenchmarkParseBytecodeVsText parses every golden program in both forms,
// alternating in one run: the text JAX prints and the portable artifact JAX
// sends. It reports each form's speed (MB/s of its own bytes), the speed of
// mlirbc.Read alone, and how much longer the text takes for the same
// programs (text/bytecode, from the best pass of each).
func BenchmarkParseBytecodeVsText(b *testing.B) {
	texts, _ := filepath.Glob(filepath.Join(goldenDir, "*.mlir"))
	var text, bc [][]byte
	var textBytes, bcBytes int
	for _, path := range texts {
		t, err1 := os.ReadFile(path)
		c, err2 := os.ReadFile(path + "bc")
		if err1 != nil || err2 != nil {
			b.Fatal(err1, err2)
		}
		text, bc = append(text, t), append(bc, c)
		textBytes, bcBytes = textBytes+len(t), bcBytes+len(c)
	}
	pass := func(srcs [][]byte, parse func([]byte) error) time.Duration {
		start := time.Now()
		for _, src := range srcs {
			if err := parse(src); err != nil {
				b.Fatal(err)
			}
		}
		return time.Since(start)
	}
	parse := func(src []byte) error { _, err := Parse(src); return err }
	read := func(src []byte) error { _, err := mlirbc.Read(src); return err }
	bestText, bestBC, bestRead := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ResetTimer()
	for b.Loop() {
		bestText = min(bestText, pass(text, parse))
		bestBC = min(bestBC, pass(bc, parse))
		bestRead = min(bestRead, pass(bc, read))
	}
	mbps := func(n int, d time.Duration) float64 { return float64(n) / 1e6 / d.Seconds() }
	b.ReportMetric(mbps(textBytes, bestText), "text-MB/s")
	b.ReportMetric(mbps(bcBytes, bestBC), "bytecode-MB/s")
	b.ReportMetric(mbps(bcBytes, bestRead), "mlirbc.Read-MB/s")
	b.ReportMetric(float64(bestText)/float64(bestBC), "text/bytecode")
	b.ReportMetric(float64(len(text)), "programs")
}
