package stablehlo

import (
	"math"
	"testing"
)

// TestTypedComparisonsMatchTheirDefinition checks the typed loops of
// compare, maximum and minimum against their element-by-element
// definitions (cmpFloat or cmp.Compare and a direction's test; floatMax and
// floatMin, bit for bit) on every pair of values that decide them: NaNs of
// both signs, signed zeros, infinities, equal values.
func TestTypedComparisonsMatchTheirDefinition(t *testing.T) {
	values := []float64{math.NaN(), math.Copysign(math.NaN(), -1), 0, math.Copysign(0, -1),
		math.Inf(1), math.Inf(-1), 1.5, -1.5, 2}
	var xs, ys []float64
	for _, x := range values {
		for _, y := range values {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	f64 := func(v []float64) *array {
		return &array{t: TensorType{Elem: F64, Shape: []int64{int64(len(v))}}, f64: v}
	}
	ints := func(v []float64) *array {
		a := &array{t: TensorType{Elem: I64, Shape: []int64{int64(len(v))}}, i: make([]int64, len(v))}
		for k, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				a.i[k] = int64(x * 2)
			}
		}
		return a
	}
	for _, mk := range []func([]float64) *array{f64, ints} {
		a, b := mk(xs), mk(ys)
		for _, dir := range []string{"EQ", "NE", "LT", "LE", "GT", "GE"} {
			got := make([]bool, len(xs))
			if !compareTyped(dir, got, a, b) {
				t.Fatalf("%s on %s: no typed loop", dir, a.t.Elem)
			}
			test, err := comparisonTest(dir)
			if err != nil {
				t.Fatal(err)
			}
			for k := range got {
				if want := test(compareAt(a, k, b, k, false)); got[k] != want {
					t.Errorf("%s %s: compare %v, %v gave %v, want %v", a.t.Elem, dir, xs[k], ys[k], got[k], want)
				}
			}
		}
	}
	for _, kind := range []binaryKind{binMax, binMin} {
		got := make([]float64, len(xs))
		binaryFloat(kind, got, xs, ys)
		for k := range got {
			want := floatMax(xs[k], ys[k])
			if kind == binMin {
				want = floatMin(xs[k], ys[k])
			}
			if math.Float64bits(got[k]) != math.Float64bits(want) {
				t.Errorf("kind %v of %v, %v gave %v, want %v", kind, xs[k], ys[k], got[k], want)
			}
		}
	}
}
