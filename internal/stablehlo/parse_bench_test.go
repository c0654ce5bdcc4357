package stablehlo

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkParseLarge parses a 20,000-op function; parsing must stay
// linear in the input size.
func BenchmarkParseLarge(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n")
	prev := "%a"
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&sb, "  %%%d = stablehlo.add %s, %%a : tensor<4xf32> loc(\"f.py\":%d:1)\n", i, prev, i)
		prev = fmt.Sprintf("%%%d", i)
	}
	fmt.Fprintf(&sb, "  return %s : tensor<4xf32>\n}\n", prev)
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
