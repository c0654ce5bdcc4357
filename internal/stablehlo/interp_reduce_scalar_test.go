package stablehlo

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// argReduce is JAX's argmax (GT) or argmin (LT) of a rows×cols array of
// type elem along dimension 1, as jax 0.12 lowers it, returning the value
// and the index.
func argReduce(elem, dir, cmpType string, rows, cols int) string {
	return fmt.Sprintf(`func.func @main(%%x: tensor<%[4]dx%[5]dx%[1]s>, %%init: tensor<%[1]s>) -> (tensor<%[4]dx%[1]s>, tensor<%[4]dxi32>) {
  %%iota = stablehlo.iota dim = 1 : tensor<%[4]dx%[5]dxi32>
  %%c = stablehlo.constant dense<0> : tensor<i32>
  %%r:2 = stablehlo.reduce(%%x init: %%init), (%%iota init: %%c) across dimensions = [1] : (tensor<%[4]dx%[5]dx%[1]s>, tensor<%[4]dx%[5]dxi32>, tensor<%[1]s>, tensor<i32>) -> (tensor<%[4]dx%[1]s>, tensor<%[4]dxi32>)
   reducer(%%a: tensor<%[1]s>, %%b: tensor<%[1]s>) (%%ai: tensor<i32>, %%bi: tensor<i32>)  {
    %%2 = stablehlo.compare %[2]s, %%a, %%b, %[3]s : (tensor<%[1]s>, tensor<%[1]s>) -> tensor<i1>
    %%3 = stablehlo.compare NE, %%a, %%a, %[3]s : (tensor<%[1]s>, tensor<%[1]s>) -> tensor<i1>
    %%4 = stablehlo.or %%2, %%3 : tensor<i1>
    %%5 = stablehlo.compare EQ, %%a, %%b, %[3]s : (tensor<%[1]s>, tensor<%[1]s>) -> tensor<i1>
    %%6 = stablehlo.compare LT, %%ai, %%bi, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %%7 = stablehlo.and %%5, %%6 : tensor<i1>
    %%8 = stablehlo.or %%4, %%7 : tensor<i1>
    %%9 = stablehlo.select %%4, %%a, %%b : tensor<i1>, tensor<%[1]s>
    %%10 = stablehlo.select %%8, %%ai, %%bi : tensor<i1>, tensor<i32>
    stablehlo.return %%9, %%10 : tensor<%[1]s>, tensor<i32>
  }
  return %%r#0, %%r#1 : tensor<%[4]dx%[1]s>, tensor<%[4]dxi32>
}`, elem, dir, cmpType, rows, cols)
}

// A variadic body of arithmetic, logic and a constant: (max(a, b),
// a - b + 1, not(ai xor bi)).
const mixedReduce = `func.func @main(%x: tensor<3x5xf32>, %y: tensor<3x5xi8>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xi8>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %zi = stablehlo.constant dense<3> : tensor<i8>
  %r:3 = stablehlo.reduce(%x init: %z), (%x init: %z), (%y init: %zi) across dimensions = [0] : (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xi8>, tensor<f32>, tensor<f32>, tensor<i8>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xi8>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<f32>, %d: tensor<f32>) (%e: tensor<i8>, %f: tensor<i8>)  {
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %s = stablehlo.subtract %c, %d : tensor<f32>
    %s1 = stablehlo.add %s, %one : tensor<f32>
    %x1 = stablehlo.xor %e, %f : tensor<i8>
    %n = stablehlo.not %x1 : tensor<i8>
    stablehlo.return %m, %s1, %n : tensor<f32>, tensor<f32>, tensor<i8>
  }
  return %r#0, %r#1, %r#2 : tensor<5xf32>, tensor<5xf32>, tensor<5xi8>
}`

// Reduction bodies of elementwise ops on scalars run compiled, and give
// what the interpreted body gives, bit for bit: ties go to the first index,
// NaN wins and the first NaN's index is kept, total order puts +0 above -0,
// integers wrap.
func TestScalarBodyMatchesTheInterpretedBody(t *testing.T) {
	floats := "[[1.0, 5.0, 5.0, -2.0, 0.0], [0x7FC00000, 3.0, 0x7FC00000, 9.0, -0.0], [-1.0, -1.0, -3.0, -1.0, 0x7F800000]]"
	ints := "[[1, 5, 5, -2, 0], [7, 3, 7, 9, 0], [-1, -1, -3, -1, 100]]"
	cases := []struct {
		name, src string
		args      []*Tensor
	}{
		{"argmax f32", argReduce("f32", "GT", "FLOAT", 3, 5), []*Tensor{literal(t, "tensor<3x5xf32>", floats), literal(t, "tensor<f32>", "0xFF800000")}},
		{"argmin f32", argReduce("f32", "LT", "FLOAT", 3, 5), []*Tensor{literal(t, "tensor<3x5xf32>", floats), literal(t, "tensor<f32>", "0x7F800000")}},
		{"argmax bf16", argReduce("bf16", "GT", "FLOAT", 3, 5), []*Tensor{literal(t, "tensor<3x5xbf16>", strings.ReplaceAll(floats, "0x7FC00000", "0x7FC0")), literal(t, "tensor<bf16>", "0xFF80")}},
		{"argmax f64 total order", argReduce("f64", "GT", "TOTALORDER", 3, 5), []*Tensor{literal(t, "tensor<3x5xf64>", "[[-0.0, 0.0, -1.0, -2.0, -3.0], [0x7FF8000000000000, 3.0, 1.0, 9.0, -0.0], [-1.0, -1.0, -3.0, -1.0, 0.0]]"), literal(t, "tensor<f64>", "0xFFF0000000000000")}},
		{"argmax i32", argReduce("i32", "GT", "SIGNED", 3, 5), []*Tensor{literal(t, "tensor<3x5xi32>", ints), literal(t, "tensor<i32>", "-2147483648")}},
		{"argmin ui8", argReduce("ui8", "LT", "UNSIGNED", 3, 5), []*Tensor{literal(t, "tensor<3x5xui8>", strings.ReplaceAll(ints, "-", "")), literal(t, "tensor<ui8>", "255")}},
		{"variadic", mixedReduce, []*Tensor{literal(t, "tensor<3x5xf32>", floats), literal(t, "tensor<3x5xi8>", "[[1, 5, 5, -2, 0], [7, 3, 7, 9, 0], [-1, -1, -3, -1, 100]]")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, c.src)
			reduce := m.Main().body.ops[len(m.Main().body.ops)-1]
			for _, op := range m.Main().body.ops {
				if op.Name == "stablehlo.reduce" {
					reduce = op
				}
			}
			body := reduce.regions[0]
			if _, ok := compileScalarBody(body, len(body.args)/2); !ok {
				t.Fatal("the body was not compiled")
			}
			got, err := runMain(t, m, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			compileScalarBodies = false
			want, err := runMain(t, m, c.args...)
			compileScalarBodies = true
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("compiled body (+) differs from the interpreted one (-):\n%s", diff)
			}
		})
	}
}

// A body with an op the compiler does not take (here exponential) is
// interpreted: the reduction still runs.
func TestScalarBodyLeavesOtherOpsToTheInterpreter(t *testing.T) {
	src := `func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %e = stablehlo.exponential %b : tensor<f32>
    %s = stablehlo.add %a, %e : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}`
	m := mustParse(t, src)
	body := m.Main().body.ops[1].regions[0]
	if _, ok := compileScalarBody(body, 1); ok {
		t.Fatal("a body with exponential was compiled")
	}
	got, err := runMain(t, m, literal(t, "tensor<4xf32>", "[0.0, 0.0, 0.0, 0.0]"))
	if err != nil {
		t.Fatal(err)
	}
	if want := literal(t, "tensor<f32>", "4.0"); !cmp.Equal(got[0], want) {
		t.Errorf("sum of exp(0) over 4 = %v, want %v", got[0], want)
	}
}
