package stablehlo

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/internal/golden"
)

// TestBytecodeCorpus reads every golden program's portable artifact (the
// bytes JAX sends to an IFRT proxy server) and checks that it parses to the
// same IR as its text twin and computes the golden outputs.
//
// "The same IR" is canonModule's: the functions reachable from @main, their
// signatures (types, shardings, donation, attributes) and the dataflow graph
// of their results, ops and attributes in one spelling. JAX's serializer
// expands some CHLO ops into StableHLO before writing the artifact (others
// it keeps as composites, which read back as the op); for programs with such
// an op only the signatures can match.
func TestBytecodeCorpus(t *testing.T) { testBytecodeDir(t, goldenDir, 80) }

// TestBytecodeJAX012 does the same for programs of the same generator run
// with jax and jaxlib 0.12.0.1, whose artifacts target StableHLO 1.16.3
// (testdata/jax0.12/README.md).
func TestBytecodeJAX012(t *testing.T) { testBytecodeDir(t, "testdata/jax0.12", 10) }

func testBytecodeDir(t *testing.T, dir string, atLeast int) {
	cases := loadGolden(t, dir)
	if len(cases) < atLeast {
		t.Fatalf("%s has %d programs, want at least %d", dir, len(cases), atLeast)
	}
	for _, name := range slices.Sorted(maps.Keys(cases)) {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			text := golden.ReadFile(t, filepath.Join(dir, name+".mlir"))
			bc, err := os.ReadFile(filepath.Join(dir, name+".mlirbc"))
			if err != nil {
				t.Fatalf("%v (scripts/gen_stablehlo_corpus.py writes the .mlirbc twin of every program)", err)
			}
			mt, err := Parse(text)
			if err != nil {
				t.Fatalf("Parse(text): %v", err)
			}
			mb, err := Parse(bc)
			if err != nil {
				t.Fatalf("Parse(bytecode): %v", err)
			}
			want, got := canonModule(mt), canonModule(mb)
			if expanded := expandedCHLO(mt, mb); len(expanded) > 0 {
				t.Logf("JAX expanded %v before serializing: comparing signatures only", expanded)
				want, got = signatureOf(want), signatureOf(got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("bytecode IR differs from the text's (-text +bytecode):\n%s", diff)
			}
			checkGoldenRun(t, c, mb)
		})
	}
}

// expandedCHLO lists the CHLO ops of text that bytecode lacks.
func expandedCHLO(text, bytecode *Module) []string {
	have := opNames(bytecode)
	var out []string
	for name := range opNames(text) {
		if len(name) > 5 && name[:5] == "chlo." && !have[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func opNames(m *Module) map[string]bool {
	names := map[string]bool{}
	for _, f := range m.funcs {
		if f.body != nil {
			eachOp(f.body, func(op *operation) {
				names[op.Name] = true
				if op.fused != nil {
					for _, f := range op.fused.ops {
						names[f.Name] = true
					}
				}
			})
		}
	}
	return names
}

// signatureOf keeps the module line and @main's signature of a canonModule.
func signatureOf(canon map[string]string) map[string]string {
	main := canon["@main"]
	if i := lastIndex(main, " -> "); i >= 0 {
		main = main[:i]
	}
	return map[string]string{"module": canon["module"], "@main": main}
}

func lastIndex(s, sep string) int {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return i
		}
	}
	return -1
}
