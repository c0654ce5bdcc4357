package stablehlo

import (
	"cmp"
	"math"
)

// compare, select and clamp.

func comparisonArgs(op *operation) (dir, typ string) {
	if a := op.attrs["comparison_direction"]; a != nil {
		dir = enumWord(a)
	}
	if a := op.attrs["compare_type"]; a != nil {
		typ = enumWord(a)
	}
	if pos := op.attrs["_positional"]; pos != nil && len(pos.List) > 0 {
		dir = pos.List[0].Str
		if len(pos.List) > 1 {
			typ = pos.List[len(pos.List)-1].Str
		}
	}
	return dir, typ
}

// enumWord extracts GT from `GT`, `#stablehlo<comparison_direction GT>` etc.
func enumWord(a *Attr) string {
	switch a.Kind {
	case AttrEnum, AttrString:
		return a.Str
	case AttrDialect:
		for _, v := range a.Dict {
			if v.Kind == AttrEnum {
				return v.Str
			}
		}
		if len(a.List) == 1 && a.List[0].Kind == AttrEnum {
			return a.List[0].Str
		}
	}
	return ""
}

func evalCompare(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || !in[0].t.Equal(in[1].t) {
		return nil, invalidf("compare needs two operands of one type")
	}
	dir, typ := comparisonArgs(op)
	test, err := comparisonTest(dir)
	if err != nil {
		return nil, err
	}
	a, b := in[0], in[1]
	out := newArray(TensorType{Elem: Bool, Shape: a.t.Shape})
	total := typ == "TOTALORDER"
	if !total && compareTyped(dir, out.b, a, b) {
		return ev.one(out), nil
	}
	switch a.t.Elem.class() {
	case classF32:
		for i := range a.f32 {
			out.b[i] = test(cmpFloat(float64(a.f32[i]), float64(b.f32[i]), total))
		}
	case classF64:
		for i := range a.f64 {
			out.b[i] = test(cmpFloat(a.f64[i], b.f64[i], total))
		}
	case classComplex:
		if dir != "EQ" && dir != "NE" {
			return nil, invalidf("compare %s is not defined for %s", dir, a.t.Elem)
		}
		for i := range a.c {
			out.b[i] = test(compareAt(a, i, b, i, total))
		}
	default:
		for i := range out.b {
			out.b[i] = test(compareAt(a, i, b, i, total))
		}
	}
	return ev.one(out), nil
}

// compareTyped compares real or integer a and b element by element into
// out with the language's operators, which order them as cmpFloat and
// cmp.Compare do (a NaN is unordered: only NE holds), and reports whether
// it could: a test through a function value per element cost 14 ns.
func compareTyped(dir string, out []bool, a, b *array) bool {
	switch a.t.Elem.class() {
	case classF32:
		return compareSlices(dir, out, a.f32, b.f32)
	case classF64:
		return compareSlices(dir, out, a.f64, b.f64)
	case classInt:
		return compareSlices(dir, out, a.i, b.i)
	case classUint:
		return compareSlices(dir, out, a.u, b.u)
	}
	return false
}

func compareSlices[T float32 | float64 | int64 | uint64](dir string, out []bool, a, b []T) bool {
	a, b = a[:len(out)], b[:len(out)]
	switch dir {
	case "EQ":
		for i := range out {
			out[i] = a[i] == b[i]
		}
	case "NE":
		for i := range out {
			out[i] = a[i] != b[i]
		}
	case "LT":
		for i := range out {
			out[i] = a[i] < b[i]
		}
	case "LE":
		for i := range out {
			out[i] = a[i] <= b[i]
		}
	case "GT":
		for i := range out {
			out[i] = a[i] > b[i]
		}
	case "GE":
		for i := range out {
			out[i] = a[i] >= b[i]
		}
	default:
		return false
	}
	return true
}

// comparisonTest turns a comparison direction into a test of cmpFloat's or
// cmp.Compare's result.
func comparisonTest(dir string) (func(c int) bool, error) {
	switch dir {
	case "EQ":
		return func(c int) bool { return c == 0 }, nil
	case "NE":
		return func(c int) bool { return c != 0 }, nil
	case "LT":
		return func(c int) bool { return c == -1 }, nil
	case "LE":
		return func(c int) bool { return c == -1 || c == 0 }, nil
	case "GT":
		return func(c int) bool { return c == 1 }, nil
	case "GE":
		return func(c int) bool { return c == 1 || c == 0 }, nil
	}
	return nil, invalidf("unknown comparison direction %q", dir)
}

// compareAt compares a[i] with b[j] of the same element type.
func compareAt(a *array, i int, b *array, j int, total bool) int {
	switch a.t.Elem.class() {
	case classF32:
		return cmpFloat(float64(a.f32[i]), float64(b.f32[j]), total)
	case classF64:
		return cmpFloat(a.f64[i], b.f64[j], total)
	case classInt:
		return cmp.Compare(a.i[i], b.i[j])
	case classUint:
		return cmp.Compare(a.u[i], b.u[j])
	case classComplex: // lexicographic, as NumPy sorts complex values
		if c := cmpFloat(real(a.c[i]), real(b.c[j]), total); c != 0 {
			return c
		}
		return cmpFloat(imag(a.c[i]), imag(b.c[j]), total)
	}
	return cmp.Compare(boolInt(a.b[i]), boolInt(b.b[j]))
}

// cmpFloat returns -1, 0, 1, or 2 for unordered (NaN) under IEEE rules; with
// total it orders -NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN.
func cmpFloat(x, y float64, total bool) int {
	if total {
		return cmp.Compare(totalOrderKey(x), totalOrderKey(y))
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	case x == y:
		return 0
	}
	return 2
}

func totalOrderKey(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		b ^= math.MaxInt64
	}
	return b
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func evalSelect(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 3 {
		return nil, invalidf("select needs 3 operands")
	}
	pred, x, y := in[0], in[1], in[2]
	if !x.t.Equal(y.t) || pred.b == nil {
		return nil, invalidf("select operand types do not match")
	}
	n := x.size()
	scalarPred := pred.size() == 1 && len(pred.t.Shape) == 0
	if !scalarPred && pred.size() != n {
		return nil, invalidf("select predicate shape %s does not match %s", pred.t, x.t)
	}
	if scalarPred {
		if pred.b[0] {
			return ev.one(x), nil
		}
		return ev.one(y), nil
	}
	// Each element is read before it is written: the result may take over
	// a dead operand's storage, else every element of new storage is written.
	out := reusableOperand(op, in)
	if out == nil {
		out = newUninitializedArray(x.t)
	}
	switch x.t.Elem.class() {
	case classF32:
		selectInto(out.f32, pred.b, x.f32, y.f32)
	case classF64:
		selectInto(out.f64, pred.b, x.f64, y.f64)
	case classInt:
		selectInto(out.i, pred.b, x.i, y.i)
	case classUint:
		selectInto(out.u, pred.b, x.u, y.u)
	case classComplex:
		selectInto(out.c, pred.b, x.c, y.c)
	default:
		selectInto(out.b, pred.b, x.b, y.b)
	}
	return ev.one(out), nil
}

func selectInto[T any](out []T, pred []bool, x, y []T) {
	x, y, pred = x[:len(out)], y[:len(out)], pred[:len(out)]
	for i, p := range pred {
		if p {
			out[i] = x[i]
		} else {
			out[i] = y[i]
		}
	}
}

func evalClamp(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 3 {
		return nil, invalidf("clamp needs 3 operands")
	}
	lo, x, hi := in[0], in[1], in[2]
	lo, hi = expandScalar(lo, x.t), expandScalar(hi, x.t)
	if !lo.t.Equal(x.t) || !hi.t.Equal(x.t) {
		return nil, invalidf("clamp operand types do not match")
	}
	t1, err := applyBinary(binMax, lo, x)
	if err != nil {
		return nil, err
	}
	out, err := applyBinary(binMin, t1, hi)
	if err != nil {
		return nil, err
	}
	return ev.one(out), nil
}

// expandScalar broadcasts a rank-0 array of t's element type to t.
func expandScalar(a *array, t TensorType) *array {
	if len(a.t.Shape) == 0 && len(t.Shape) > 0 && a.t.Elem == t.Elem {
		return broadcastScalar(a, t)
	}
	return a
}
