package stablehlo

import "testing"

// TestBranchesTakeOnlyValuesNothingReadsLater covers case and if branches
// writing into a value they read from outside: only into one nothing reads
// after the op, and a result that a branch passes through, or returns
// twice, is held elsewhere.
func TestBranchesTakeOnlyValuesNothingReadsLater(t *testing.T) {
	f32x3 := "tensor<3xf32>"
	inputs := func(p string) string {
		return cst("x", f32x3, "[1.0, 2.0, 3.0]") + cst("y", f32x3, "[10.0, 20.0, 30.0]") + cst("p", "tensor<i1>", p) +
			"  %a = stablehlo.add %x, %y : tensor<3xf32>\n"
	}
	branches := `({
    %z = stablehlo.add %a, %y : tensor<3xf32>
    stablehlo.return %z : tensor<3xf32>
  }, {
    stablehlo.return %a : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
`
	runOpCases(t, []opCase{
		{"value_dies_in_the_branch", inputs("true") +
			`  %b = "stablehlo.if"(%p) ` + branches +
			"  %r = stablehlo.add %b, %y : tensor<3xf32>", f32x3, "[31.0, 62.0, 93.0]"},
		{"dead_value_passed_through", inputs("false") +
			`  %b = "stablehlo.if"(%p) ` + branches +
			"  %r = stablehlo.add %b, %y : tensor<3xf32>", f32x3, "[21.0, 42.0, 63.0]"},
		{"value_read_after_the_op", inputs("true") +
			`  %b = "stablehlo.if"(%p) ` + branches +
			"  %r = stablehlo.subtract %b, %a : tensor<3xf32>", f32x3, "[10.0, 20.0, 30.0]"},
		{"value_passed_through_and_read_after", inputs("false") +
			`  %b = "stablehlo.if"(%p) ` + branches +
			"  %c = stablehlo.add %b, %y : tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %c, %a : tensor<3xf32>", f32x3, "[10.0, 20.0, 30.0]"},
		{"value_returned_twice", inputs("true") +
			`  %b:2 = "stablehlo.if"(%p) ({
    %z = stablehlo.add %a, %y : tensor<3xf32>
    stablehlo.return %z, %z : tensor<3xf32>, tensor<3xf32>
  }, {
    %w = stablehlo.negate %a : tensor<3xf32>
    stablehlo.return %w, %w : tensor<3xf32>, tensor<3xf32>
  }) : (tensor<i1>) -> (tensor<3xf32>, tensor<3xf32>)
` +
			"  %c = stablehlo.add %b#0, %y : tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %c, %b#1 : tensor<3xf32>", f32x3, "[10.0, 20.0, 30.0]"},
	})
}

// TestBranchInLoopWritesTheCarryInPlace: a 512-step loop whose body picks,
// with a case on the step's parity, one of two updates of row k of its
// 128 KiB carry (lax.cond or lax.switch in a fori_loop), or an update and
// the carry unchanged, must update it in place: before branches could take
// a value, each step copied the carry (64 MiB in all).
func TestBranchInLoopWritesTheCarryInPlace(t *testing.T) {
	negateRow := `      %row = stablehlo.dynamic_slice %b, %k, %z, sizes = [1, 64] : (tensor<512x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
      %neg = stablehlo.negate %row : tensor<1x64xf32>
      %u = stablehlo.dynamic_update_slice %b, %neg, %k, %z : (tensor<512x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<512x64xf32>
      stablehlo.return %u : tensor<512x64xf32>
`
	passThrough := `      stablehlo.return %b : tensor<512x64xf32>
`
	for _, c := range []struct {
		name string
		odd  string              // the branch of odd steps
		want func(k int) float32 // row k of an odd step
	}{
		{"negate_odd_rows", negateRow, func(k int) float32 { return -float32(k) }},
		{"keep_odd_rows", passThrough, func(k int) float32 { return float32(k) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, rowLoop(`    %two = stablehlo.constant dense<2> : tensor<i32>
    %odd = stablehlo.remainder %k, %two : tensor<i32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %b2 = "stablehlo.case"(%odd) ({
      %one = stablehlo.constant dense<1.0> : tensor<1x64xf32>
      %u = stablehlo.dynamic_update_slice %b, %one, %k, %z : (tensor<512x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<512x64xf32>
      stablehlo.return %u : tensor<512x64xf32>
    }, {
`+c.odd+`    }) : (tensor<i32>) -> tensor<512x64xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %b2, %k2 : tensor<512x64xf32>, tensor<i32>
`))
			buf := f32Rows(512, 64, func(k int) float32 { return float32(k) })
			out, allocated := runCountingBytes(t, m, buf)
			// Even rows become 1; the caller's buffer is unchanged.
			for k := range 512 {
				want := float32(1)
				if k%2 == 1 {
					want = c.want(k)
				}
				if got := f32At(out[0], 64*k); got != want {
					t.Fatalf("row %d = %v, want %v", k, got, want)
				}
				if got := f32At(buf, 64*k); got != float32(k) {
					t.Fatalf("the argument's row %d became %v", k, got)
				}
			}
			if allocated > 16<<20 {
				t.Errorf("the loop allocated %d MiB for a 128 KiB carry: it is copied every step", allocated>>20)
			}
		})
	}
}
