package stablehlo

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseBytecode is FuzzParse for portable artifacts: mutated bytecode
// must parse, convert and run (on zero inputs) without a panic or an
// Internal error.
func FuzzParseBytecode(f *testing.F) {
	for _, dir := range []string{goldenDir, "testdata/jax0.12", "testdata/bytecode"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.mlirbc"))
		for _, name := range files {
			if b, err := os.ReadFile(name); err == nil && len(b) < 1<<14 {
				f.Add(b)
			}
		}
	}
	f.Fuzz(fuzzParseAndRun)
}
