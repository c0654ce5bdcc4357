package stablehlo

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/golden"
)

const goldenDir = "testdata/golden"

// goldenTensor decodes a corpus tensor.
func goldenTensor(g golden.Tensor) (*Tensor, error) {
	e, ok := ParseElemType(g.Type)
	if !ok {
		return nil, fmt.Errorf("unknown type %q", g.Type)
	}
	data, err := base64.StdEncoding.DecodeString(g.Data)
	if err != nil {
		return nil, err
	}
	shape := g.Shape
	if shape == nil {
		shape = []int64{}
	}
	return NewTensor(TensorType{Elem: e, Shape: shape}, data)
}

func loadGolden(t testing.TB, dir string) map[string]golden.Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]golden.Case{}
	for _, f := range files {
		c := golden.Load(t, f)
		cases[c.Name] = c
	}
	return cases
}

// goldenUnsupported lists corpus programs the interpreter rejects on
// purpose; each must fail with Unimplemented.
var goldenUnsupported = map[string]string{}

func TestGoldenCorpus(t *testing.T) {
	cases := loadGolden(t, goldenDir)
	if len(cases) < 40 {
		t.Fatalf("golden corpus has %d programs, want at least 40", len(cases))
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkGoldenCase(t, goldenDir, c)
		})
	}
}

// checkGoldenCase runs the program of c (dir/NAME.mlir) in the interpreter and
// compares its outputs with c's.
func checkGoldenCase(t *testing.T, dir string, c golden.Case) {
	src, err := os.ReadFile(filepath.Join(dir, c.Name+".mlir"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	checkGoldenRun(t, c, m)
}

// checkGoldenRun runs m on the corpus entry's inputs and compares with its
// outputs; the programs of goldenUnsupported must fail with Unimplemented
// and report collectives.
func checkGoldenRun(t *testing.T, c golden.Case, m *Module) {
	t.Helper()
	var args []*Tensor
	for i, in := range c.Inputs {
		a, err := goldenTensor(in)
		if err != nil {
			t.Fatalf("input %d: %v", i, err)
		}
		args = append(args, a)
	}
	got, err := m.Run(context.Background(), args)
	if reason, ok := goldenUnsupported[c.Name]; ok {
		if !m.UsesCollectives() {
			t.Errorf("UsesCollectives() = false for %s", reason)
		}
		var e *Error
		if !errors.As(err, &e) || e.Code() != Unimplemented {
			t.Fatalf("Run error = %v, want Unimplemented (%s)", err, reason)
		}
		return
	}
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(got) != len(c.Outputs) {
		t.Fatalf("got %d outputs, want %d", len(got), len(c.Outputs))
	}
	for i, o := range c.Outputs {
		want, err := goldenTensor(o)
		if err != nil {
			t.Fatalf("output %d: %v", i, err)
		}
		if msg := compareTensors(got[i], want, c.RTol, c.ATol); msg != "" {
			t.Errorf("output %d: %s", i, msg)
		}
	}
}

// compareTensors returns "" when got matches want: integers and bools
// exactly, floats within a tolerance suited to the type (overridable by
// the corpus entry's rtol/atol).
func compareTensors(got, want *Tensor, rtol, atol float64) string {
	if !got.Type.Equal(want.Type) {
		return fmt.Sprintf("type %s, want %s", got.Type, want.Type)
	}
	g, w := decodeTensor(got), decodeTensor(want)
	e := want.Type.Elem
	if e.isComplex() {
		for k, z := range g.c {
			if !floatClose(complexPart(e), real(z), real(w.c[k]), rtol, atol) || !floatClose(complexPart(e), imag(z), imag(w.c[k]), rtol, atol) {
				return fmt.Sprintf("element %d = %v, want %v", k, z, w.c[k])
			}
		}
		return ""
	}
	if !e.isFloat() {
		for k := 0; k < g.size(); k++ {
			if g.intAt(k) != w.intAt(k) || (g.u != nil && g.u[k] != w.u[k]) {
				return fmt.Sprintf("element %d = %d, want %d", k, g.intAt(k), w.intAt(k))
			}
		}
		return ""
	}
	var bad []string
	for k := 0; k < g.size(); k++ {
		var x, y float64
		if g.f64 != nil {
			x, y = g.f64[k], w.f64[k]
		} else {
			x, y = float64(g.f32[k]), float64(w.f32[k])
		}
		if !floatClose(e, x, y, rtol, atol) {
			bad = append(bad, fmt.Sprintf("[%d] %g want %g", k, x, y))
		}
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("... %d more", len(bad)-5))
		}
		return strings.Join(bad, "; ")
	}
	return ""
}

func floatClose(e ElemType, x, y, rtol, atol float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if math.IsInf(y, 0) || math.IsInf(x, 0) {
		return x == y
	}
	switch e {
	case BF16, F16:
		// A few units in the last place of the expected value.
		mant := 7
		if e == F16 {
			mant = 10
		}
		_, exp := math.Frexp(y)
		ulp := math.Ldexp(1, exp-1-mant)
		if e == F16 && ulp < math.Ldexp(1, -24) {
			ulp = math.Ldexp(1, -24)
		}
		return math.Abs(x-y) <= 3*ulp+atol
	case F32:
		if rtol == 0 {
			rtol = 2e-6
		}
		if atol == 0 {
			atol = 1e-7
		}
	default:
		if rtol == 0 {
			rtol = 1e-12
		}
		if atol == 0 {
			atol = 1e-300
		}
	}
	return math.Abs(x-y) <= atol+rtol*math.Abs(y)
}
