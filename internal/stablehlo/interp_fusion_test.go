package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFusionMatchesUnfused runs elementwise chains twice: as written (fused
// into tiles) and with a reshape after every op, which prevents fusion and
// buffer reuse patterns from lining up. Results must be bit-identical.
func TestFusionMatchesUnfused(t *testing.T) {
	floatSteps := []string{
		"%0 = stablehlo.multiply %x, %y",
		"%1 = stablehlo.add %0, %x",
		"%2 = stablehlo.tanh %1",
		"%3 = stablehlo.subtract %2, %0", // %0 read again: must be materialized
		"%4 = stablehlo.exponential %3",
		"%5 = stablehlo.divide %4, %y",
		"%6 = stablehlo.maximum %5, %1",
		"%7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ELEM>) -> TYPE", // a splat
		"%8 = stablehlo.multiply %6, %7",
	}
	// Threefry's kind of chain: wrapping arithmetic, shifts by amounts up
	// to and past the width, bitwise ops.
	intSteps := []string{
		"%0 = stablehlo.add %x, %y",
		"%1 = stablehlo.shift_left %0, %y",
		"%2 = stablehlo.xor %1, %x",
		"%3 = stablehlo.shift_right_logical %2, %y", // %2 read again below
		"%4 = stablehlo.or %3, %2",
		"%5 = stablehlo.shift_right_arithmetic %4, %x",
		"%6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ELEM>) -> TYPE", // a splat
		"%7 = stablehlo.shift_right_logical %0, %6",                              // the sum must have wrapped: its carry must not come down
		"%8 = stablehlo.multiply %7, %5",
	}
	// floor_divide's and remainder's kind: division by zero (x/0 is -1,
	// x%0 is x) and MinInt / -1, which wraps.
	divSteps := []string{
		"%0 = stablehlo.add %x, %y",
		"%1 = stablehlo.divide %x, %y",
		"%2 = stablehlo.remainder %x, %1",
		"%3 = stablehlo.divide %0, %2",
		"%4 = stablehlo.shift_right_logical %y, %x", // often 0
		"%5 = stablehlo.divide %x, %4",
		"%6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ELEM>) -> TYPE",
		"%7 = stablehlo.divide %5, %6",
		"%8 = stablehlo.remainder %7, %3",
	}
	for _, c := range []struct {
		name  string
		elems []string
		steps []string
		c     string
	}{
		{"float", []string{"f32", "bf16", "f16", "f64"}, floatSteps, "1.5"},
		{"bits", []string{"ui32", "i32", "ui8", "i8", "i16", "ui64", "i64"}, intSteps, "1"},
		{"division", []string{"i32", "i8", "i64"}, divSteps, "-1"},
		{"division", []string{"ui32", "ui8", "ui64"}, divSteps, "3"},
	} {
		for _, elem := range c.elems {
			t.Run(c.name+"/"+elem, func(t *testing.T) { checkFusionMatchesUnfused(t, elem, c.steps, c.c) })
		}
	}
}

// checkFusionMatchesUnfused runs steps over %x, %y of type elem (and %c, a
// scalar constant) fused and unfused, and compares %8 and %2.
func checkFusionMatchesUnfused(t *testing.T, elem string, steps []string, constant string) {
	const n = fusionMinElements + 2*fusionTile + 17 // several tiles and a ragged end
	typ := fmt.Sprintf("tensor<%dx%s>", n, elem)
	program := func(split bool) string {
		var b strings.Builder
		fmt.Fprintf(&b, "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n", typ, typ, typ, typ)
		fmt.Fprintf(&b, "  %%c = stablehlo.constant dense<%s> : tensor<%s>\n", constant, elem)
		for _, s := range steps {
			s = strings.NewReplacer("ELEM", elem, "TYPE", typ).Replace(s)
			name := strings.Fields(s)[0]
			if split {
				s = strings.Replace(s, name, name+"_", 1)
			}
			if strings.Contains(s, " : ") {
				fmt.Fprintf(&b, "  %s\n", s)
			} else {
				fmt.Fprintf(&b, "  %s : %s\n", s, typ)
			}
			if split {
				fmt.Fprintf(&b, "  %s = stablehlo.reshape %s_ : (%s) -> %s\n", name, name, typ, typ)
			}
		}
		fmt.Fprintf(&b, "  return %%8, %%2 : %s, %s\n}\n", typ, typ)
		return b.String()
	}
	fused := mustParse(t, program(false))
	if !hasFusedOp(fused) || !fusedSplat(fused) {
		t.Fatal("chain was not fused, or its broadcast of a scalar was left out")
	}
	plain := mustParse(t, program(true))
	if hasFusedOp(plain) {
		t.Fatal("split chain was fused")
	}
	e, x, y := patternedArgs(elem, n)
	if e.isFloat() { // keep exponents moderate
		for i := e.ByteSize() - 1; i < len(x.Data); i += e.ByteSize() {
			x.Data[i] = 0x3f
			y.Data[i] = 0x3f
		}
	}
	checkSameResults(t, fused, plain, x, y)
}

// patternedArgs returns two vectors of n elements of type elem whose bytes
// follow two different patterns.
func patternedArgs(elem string, n int) (ElemType, *Tensor, *Tensor) {
	e, _ := ParseElemType(elem)
	x := &Tensor{Type: TensorType{Elem: e, Shape: []int64{int64(n)}}, Data: make([]byte, n*e.ByteSize())}
	y := &Tensor{Type: x.Type, Data: make([]byte, len(x.Data))}
	for i := range x.Data {
		x.Data[i] = byte(i*7 + 3)
		y.Data[i] = byte(i*13 + 5)
	}
	return e, x, y
}

// checkSameResults runs fused and plain, the same program with and without
// fusion, on args: their results must be bit-identical.
func checkSameResults(t *testing.T, fused, plain *Module, args ...*Tensor) {
	t.Helper()
	a, err := runMain(t, fused, args...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runMain(t, plain, args...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if string(a[i].Data) != string(b[i].Data) {
			t.Errorf("result %d differs between fused and unfused evaluation", i)
		}
	}
}

// fusedSplat reports whether a fused op of m fills a broadcast scalar.
func fusedSplat(m *Module) bool {
	for _, op := range m.Main().body.ops {
		if op.fused == nil {
			continue
		}
		for _, st := range op.fused.steps {
			if st.splat {
				return true
			}
		}
	}
	return false
}

func hasFusedOp(m *Module) bool {
	for _, op := range m.Main().body.ops {
		if op.fused != nil {
			return true
		}
	}
	return false
}

// TestFusionInsideLoop checks fusion and buffer reuse in a while body,
// where block arguments come from the previous iteration and an outer
// value is read on every iteration.
func TestFusionInsideLoop(t *testing.T) {
	const n = fusionMinElements + 3
	typ := fmt.Sprintf("tensor<%dxf32>", n)
	program := func(split bool) string {
		step := func(name, expr string) string {
			if !split {
				return fmt.Sprintf("      %s = %s : %s\n", name, expr, typ)
			}
			return fmt.Sprintf("      %s_ = %s : %s\n      %s = stablehlo.reshape %s_ : (%s) -> %s\n", name, expr, typ, name, name, typ, typ)
		}
		return fmt.Sprintf(`func.func @main(%%x: %[1]s, %%w: %[1]s) -> %[1]s {
  %%z = stablehlo.constant dense<0> : tensor<i32>
  %%r:2 = stablehlo.while(%%i = %%z, %%v = %%x) : tensor<i32>, %[1]s
  cond {
    %%three = stablehlo.constant dense<3> : tensor<i32>
    %%c = stablehlo.compare LT, %%i, %%three, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %%c : tensor<i1>
  } do {
    %%one = stablehlo.constant dense<1> : tensor<i32>
    %%j = stablehlo.add %%i, %%one : tensor<i32>
%[2]s%[3]s%[4]s    stablehlo.return %%j, %%c : tensor<i32>, %[1]s
  }
  return %%r#1 : %[1]s
}`, typ, step("%a", "stablehlo.multiply %v, %w"), step("%b", "stablehlo.sine %a"), step("%c", "stablehlo.add %b, %v"))
	}
	fused, plain := mustParse(t, program(false)), mustParse(t, program(true))
	if !hasFusedOpDeep(fused.Main().body) || hasFusedOpDeep(plain.Main().body) {
		t.Fatal("fusion did not happen as intended")
	}
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{n}}, Data: make([]byte, 4*n)}
	w := &Tensor{Type: x.Type, Data: make([]byte, 4*n)}
	for i := 0; i < n; i++ {
		x.Data[4*i+1], x.Data[4*i+3] = byte(i), 0x3f
		w.Data[4*i+2], w.Data[4*i+3] = byte(i*7), 0x3e
	}
	a, err := runMain(t, fused, x, w)
	if err != nil {
		t.Fatal(err)
	}
	b, err := runMain(t, plain, x, w)
	if err != nil {
		t.Fatal(err)
	}
	if string(a[0].Data) != string(b[0].Data) {
		t.Error("fused and unfused loop bodies differ")
	}
}

func hasFusedOpDeep(r *region) bool {
	for _, op := range r.ops {
		if op.fused != nil {
			return true
		}
		for _, sub := range op.regions {
			if hasFusedOpDeep(sub) {
				return true
			}
		}
	}
	return false
}

// TestFusionRunsOverConstants checks that the constants JAX interleaves
// with a chain's ops do not cut it: x*2+3 is one fused op of four steps.
func TestFusionRunsOverConstants(t *testing.T) {
	const n = fusionMinElements
	typ := fmt.Sprintf("tensor<%dxf32>", n)
	m := mustParse(t, strings.NewReplacer("TYPE", typ).Replace(`func.func @main(%x: TYPE) -> TYPE {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> TYPE
  %1 = stablehlo.multiply %x, %0 : TYPE
  %c_0 = stablehlo.constant dense<3.0> : tensor<f32>
  %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<f32>) -> TYPE
  %3 = stablehlo.add %1, %2 : TYPE
  return %3 : TYPE
}`))
	var steps []int
	for _, op := range m.Main().body.ops {
		if op.fused != nil {
			steps = append(steps, len(op.fused.steps))
		}
	}
	if len(steps) != 1 || steps[0] != 4 {
		t.Fatalf("fused ops' steps = %v, want one op of 4", steps)
	}
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{n}}, Data: make([]byte, 4*n)}
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(x.Data[4*i:], math.Float32bits(float32(i)))
	}
	out, err := runMain(t, m, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*i:])); got != float32(i)*2+3 {
			t.Fatalf("element %d = %v, want %v", i, got, float32(i)*2+3)
		}
	}
}

// TestFusionWithMasks runs where-style chains (compares, is_finite,
// and/or/xor/not of their masks, selects by them, a mask converted to a
// number) fused and with a reshape after every op,
// over floats with NaNs, infinities and signed zeros and over integers:
// results must be bit-identical, and the chain must be one fused op.
func TestFusionWithMasks(t *testing.T) {
	for _, elem := range []string{"f32", "f64", "bf16", "i32", "ui8", "i64"} {
		t.Run(elem, func(t *testing.T) {
			const n = fusionMinElements + fusionTile + 5
			typ := fmt.Sprintf("tensor<%dx%s>", n, elem)
			mask := fmt.Sprintf("tensor<%dxi1>", n)
			steps := []struct{ name, expr, typ string }{
				{"%0", "stablehlo.add %x, %y : TYPE", typ},
				{"%1", "stablehlo.compare GT, %0, %x : (TYPE, TYPE) -> MASK", mask},
				{"%2", "stablehlo.compare LE, %y, %x, TOTALORDER : (TYPE, TYPE) -> MASK", mask},
				{"%3", "stablehlo.compare EQ, %x, %y : (TYPE, TYPE) -> MASK", mask},
				{"%4", "stablehlo.and %1, %2 : MASK", mask},
				{"%5", "stablehlo.or %4, %3 : MASK", mask},
				{"%6", "stablehlo.xor %5, %1 : MASK", mask},
				{"%7", "stablehlo.not %6 : MASK", mask},
				{"%8", "stablehlo.select %7, %0, %y : MASK, TYPE", typ},
				{"%9", "stablehlo.select %5, %8, %x : MASK, TYPE", typ},
				{"%10", "stablehlo.select %2, %x, %y : MASK, TYPE", typ},
				{"%11", "stablehlo.convert %5 : (MASK) -> TYPE", typ},
			}
			rets := []string{"%9", "%10", "%11"}
			if strings.HasPrefix(elem, "f") || elem == "bf16" {
				steps = append(steps, struct{ name, expr, typ string }{"%12", "stablehlo.is_finite %x : (TYPE) -> MASK", mask},
					struct{ name, expr, typ string }{"%13", "stablehlo.select %12, %y, %x : MASK, TYPE", typ})
				rets = append(rets, "%13")
			}
			program := func(split bool) string {
				var b strings.Builder
				fmt.Fprintf(&b, "func.func @main(%%x: %s, %%y: %s) -> (%s) {\n", typ, typ, strings.TrimSuffix(strings.Repeat(typ+", ", len(rets)), ", "))
				for _, s := range steps {
					expr := strings.NewReplacer("TYPE", typ, "MASK", mask).Replace(s.expr)
					if !split {
						fmt.Fprintf(&b, "  %s = %s\n", s.name, expr)
						continue
					}
					fmt.Fprintf(&b, "  %s_ = %s\n  %s = stablehlo.reshape %s_ : (%s) -> %s\n", s.name, expr, s.name, s.name, s.typ, s.typ)
				}
				types := strings.TrimSuffix(strings.Repeat(typ+", ", len(rets)), ", ")
				fmt.Fprintf(&b, "  return %s : %s\n}\n", strings.Join(rets, ", "), types)
				return b.String()
			}
			fused := mustParse(t, program(false))
			var fusedOps, fusedSteps int
			for _, op := range fused.Main().body.ops {
				if op.fused != nil {
					fusedOps, fusedSteps = fusedOps+1, fusedSteps+len(op.fused.steps)
				}
			}
			if fusedOps != 1 || fusedSteps != len(steps) {
				t.Fatalf("%d fused ops of %d steps in all, want 1 of %d", fusedOps, fusedSteps, len(steps))
			}
			plain := mustParse(t, program(true))
			if hasFusedOp(plain) {
				t.Fatal("the split chain was fused")
			}
			e, x, y := patternedArgs(elem, n)
			for i := 0; i < len(x.Data); i += 37 {
				y.Data[i] = x.Data[i] // equal elements
			}
			if e.isFloat() {
				// NaNs, signed zeros and an infinity, where IEEE and total
				// order differ: element k of x and y take specials[k].
				w := e.ByteSize()
				nan, negZero, inf, zero := make([]byte, w), make([]byte, w), make([]byte, w), make([]byte, w)
				nan[w-1], nan[w-2] = 0x7f, 0xf8 // a quiet NaN in every width
				negZero[w-1] = 0x80
				inf[w-1], inf[w-2] = 0x7f, 0x80 // f32, bf16
				if w == 8 {
					inf[w-2] = 0xf0
				}
				specials := [][2][]byte{{nan, nan}, {negZero, zero}, {zero, negZero}, {inf, nan}, {nan, zero}}
				for k, sp := range specials {
					copy(x.Data[k*w:], sp[0])
					copy(y.Data[k*w:], sp[1])
				}
			}
			checkSameResults(t, fused, plain, x, y)
		})
	}
}

// TestFusionStopsBeforeAnEscapingMask: a mask read after the chain cannot
// be a fusion's result (results have the chain's type), so the chain ends
// before its compare.
func TestFusionStopsBeforeAnEscapingMask(t *testing.T) {
	const n = fusionMinElements
	m := mustParse(t, strings.NewReplacer("TYPE", fmt.Sprintf("tensor<%dxf32>", n), "MASK", fmt.Sprintf("tensor<%dxi1>", n)).Replace(`func.func @main(%x: TYPE) -> (TYPE, MASK) {
  %0 = stablehlo.add %x, %x : TYPE
  %1 = stablehlo.multiply %0, %x : TYPE
  %2 = stablehlo.compare GT, %1, %x : (TYPE, TYPE) -> MASK
  %3 = stablehlo.select %2, %1, %x : MASK, TYPE
  return %3, %2 : TYPE, MASK
}`))
	var names []string
	for _, op := range m.Main().body.ops {
		names = append(names, op.Name)
	}
	want := []string{"stablehlo.fused_elementwise", "stablehlo.compare", "stablehlo.select"}
	if !cmp.Equal(names, want) {
		t.Fatalf("ops = %v, want %v", names, want)
	}
}
