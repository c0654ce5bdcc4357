package stablehlo

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// jaxFloatKey is JAX's float comparator chain on one argument: -0 becomes
// +0 and every NaN one NaN.
func jaxFloatKey(arg, out, elem string) string {
	return fmt.Sprintf(`      %%z%[2]s = stablehlo.constant dense<0.000000e+00> : tensor<%[3]s>
      %%e%[2]s = stablehlo.compare EQ, %%%[1]s, %%z%[2]s, FLOAT : (tensor<%[3]s>, tensor<%[3]s>) -> tensor<i1>
      %%s%[2]s = stablehlo.select %%e%[2]s, %%z%[2]s, %%%[1]s : tensor<i1>, tensor<%[3]s>
      %%n%[2]s = stablehlo.compare NE, %%%[1]s, %%%[1]s, FLOAT : (tensor<%[3]s>, tensor<%[3]s>) -> tensor<i1>
      %%q%[2]s = stablehlo.constant dense<0x7FC00000> : tensor<%[3]s>
      %%%[2]s = stablehlo.select %%n%[2]s, %%q%[2]s, %%s%[2]s : tensor<i1>, tensor<%[3]s>
`, arg, out, elem)
}

// TestSortByKeysMatchesComparator sorts with comparators of JAX's shapes
// (and some that only look alike) by keys and by running the comparator for
// every comparison, and wants the same results: NaN, signed zeros and ties
// in the data, ascending and descending, IEEE and total order, several
// operands, along either dimension.
func TestSortByKeysMatchesComparator(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1}
	x := newArray(TensorType{Elem: F32, Shape: []int64{6, 40}})
	for k := range x.f32 {
		if rng.Intn(3) == 0 {
			x.f32[k] = specials[rng.Intn(len(specials))]
		} else {
			x.f32[k] = float32(rng.Intn(9) - 4) // ties
		}
	}
	neg := math.Float32frombits(0xFFC00001) // a negative NaN with a payload
	x.f32[3] = neg
	y := newArray(TensorType{Elem: I32, Shape: []int64{6, 40}})
	for k := range y.i {
		y.i[k] = int64(rng.Intn(7) - 3)
	}
	args := []*Tensor{encodeArray(x), encodeArray(y)}
	f, i := "tensor<6x40xf32>", "tensor<6x40xi32>"
	sig := "(" + f + ", " + i + ") -> (" + f + ", " + i + ")"
	comparator := func(dim int, body string) string {
		// %zero and %nan live outside the comparator, as an exported
		// module's hoisted constants do.
		return fmt.Sprintf(`func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {
  %%zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %%nan = stablehlo.constant dense<0x7FC00000> : tensor<f32>
  %%r:2 = "stablehlo.sort"(%%x, %%y) <{dimension = %d : i64, is_stable = true}> ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>, %%c: tensor<i32>, %%d: tensor<i32>):
%s  }) : %s
  return %%r#0, %%r#1 : %s, %s
}`, f, i, f, i, dim, body, sig, f, i)
	}
	ret := func(v string) string { return "      stablehlo.return " + v + " : tensor<i1>\n" }
	for _, c := range []struct {
		name  string
		body  string
		keyed bool
	}{
		{"jax_float_ascending", jaxFloatKey("a", "ka", "f32") + jaxFloatKey("b", "kb", "f32") +
			"      %r = stablehlo.compare LT, %ka, %kb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"jax_float_descending", jaxFloatKey("a", "ka", "f32") + jaxFloatKey("b", "kb", "f32") +
			"      %r = stablehlo.compare GT, %ka, %kb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"outer_constants", "      %ea = stablehlo.compare EQ, %a, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
			"      %sa = stablehlo.select %ea, %zero, %a : tensor<i1>, tensor<f32>\n" +
			"      %na = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
			"      %ka = stablehlo.select %na, %nan, %sa : tensor<i1>, tensor<f32>\n" +
			"      %eb = stablehlo.compare EQ, %b, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
			"      %sb = stablehlo.select %eb, %zero, %b : tensor<i1>, tensor<f32>\n" +
			"      %nb = stablehlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
			"      %kb = stablehlo.select %nb, %nan, %sb : tensor<i1>, tensor<f32>\n" +
			"      %r = stablehlo.compare LT, %ka, %kb, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"raw_total_order", "      %r = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"ieee_with_nan", "      %r = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"by_second_operand", "      %r = stablehlo.compare GT, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" + ret("%r"), true},
		{"negated_key", "      %na = stablehlo.negate %c : tensor<i32>\n      %nb = stablehlo.negate %d : tensor<i32>\n" +
			"      %r = stablehlo.compare LT, %na, %nb, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" + ret("%r"), true},
		{"different_sides", "      %ab = stablehlo.abs %a : tensor<f32>\n" +
			"      %r = stablehlo.compare LT, %ab, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), true},
		{"crossed_operands", "      %cf = stablehlo.convert %d : (tensor<i32>) -> tensor<f32>\n" +
			"      %r = stablehlo.compare LT, %a, %cf, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" + ret("%r"), false},
		{"lexicographic", "      %lt = stablehlo.compare LT, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" +
			"      %eq = stablehlo.compare EQ, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n" +
			"      %lt2 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n" +
			"      %both = stablehlo.and %eq, %lt2 : tensor<i1>\n      %r = stablehlo.or %lt, %both : tensor<i1>\n" + ret("%r"), false},
	} {
		for dim := range 2 {
			t.Run(fmt.Sprintf("%s/dim%d", c.name, dim), func(t *testing.T) {
				m := mustParse(t, comparator(dim, c.body))
				sortOp := m.Main().body.ops[2]
				if sortOp.Name != "stablehlo.sort" {
					t.Fatalf("first op is %s", sortOp.Name)
				}
				if _, keyed := planKeys(sortOp.regions[0]); keyed != c.keyed {
					t.Fatalf("planKeys: keyed %v, want %v", keyed, c.keyed)
				}
				got, err := runMain(t, m, args...)
				if err != nil {
					t.Fatal(err)
				}
				sortByKeys = false
				want, err := runMain(t, m, args...)
				sortByKeys = true
				if err != nil {
					t.Fatal(err)
				}
				for k := range want {
					if string(got[k].Data) != string(want[k].Data) {
						t.Errorf("result %d sorted by keys differs from the comparator's order", k)
					}
				}
			})
		}
	}
}
