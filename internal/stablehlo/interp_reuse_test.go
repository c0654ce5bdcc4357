package stablehlo

import (
	"context"
	"testing"
)

// scalarLoop runs %n iterations of a while loop of seven scalar ops (the
// condition's compare, two constants, a convert and three arithmetic ops).
const scalarLoop = `func.func @main(%n: tensor<i32>) -> tensor<f32> {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %f = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = stablehlo.while(%i = %z, %acc = %f) : tensor<i32>, tensor<f32>
  cond {
    %c = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %half = stablehlo.constant dense<0.5> : tensor<f32>
    %x = stablehlo.convert %i : (tensor<i32>) -> tensor<f32>
    %i2 = stablehlo.add %i, %one : tensor<i32>
    %a = stablehlo.multiply %acc, %half : tensor<f32>
    %b = stablehlo.add %a, %x : tensor<f32>
    stablehlo.return %i2, %b : tensor<i32>, tensor<f32>
  }
  return %r#1 : tensor<f32>
}`

// TestScalarLoopAllocations counts what one iteration of a while loop of
// scalar arithmetic allocates: its operand lists, single-result slices,
// region results and the headers of results written in place come from the
// evaluator, a fresh scalar is one allocation, and the loop's only fresh
// value is its comparison. Loops over small state (a counter, an
// accumulator, a convergence test) spend their time on these.
func TestScalarLoopAllocations(t *testing.T) {
	m := mustParse(t, scalarLoop)
	allocs := func(n string) float64 {
		arg := literal(t, "tensor<i32>", n)
		return testing.AllocsPerRun(3, func() {
			if _, err := m.Run(context.Background(), []*Tensor{arg}); err != nil {
				t.Fatal(err)
			}
		})
	}
	perIteration := (allocs("1100") - allocs("100")) / 1000
	// The comparison's result and the converted counter: two scalars. The
	// count is the whole process's, so the runtime's own allocations during
	// a run add a few in all (2.002 was seen): a tenth more is allowed, one
	// more an iteration is not.
	if perIteration > 2.1 {
		t.Errorf("an iteration allocates %.2f times, want at most 2", perIteration)
	}
}

// TestPassedThroughOperandKeepsItsValue covers a result that is its
// operand (optimization_barrier hands its operands on): when the operand is
// read later, or the op hands it to two results, a later op that writes its
// result in place must not take that storage.
func TestPassedThroughOperandKeepsItsValue(t *testing.T) {
	f32x3 := "tensor<3xf32>"
	inputs := cst("x", f32x3, "[1.0, 2.0, 3.0]") + cst("y", f32x3, "[10.0, 20.0, 30.0]") +
		"  %a = stablehlo.add %x, %y : tensor<3xf32>\n"
	runOpCases(t, []opCase{
		{"operand_read_later", inputs +
			"  %p = stablehlo.optimization_barrier %a : tensor<3xf32>\n" +
			"  %q = stablehlo.add %p, %y : tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %q, %a : tensor<3xf32>", f32x3, "[10.0, 20.0, 30.0]"},
		{"operand_handed_to_two_results", inputs +
			"  %p, %s = stablehlo.optimization_barrier %a, %a : tensor<3xf32>, tensor<3xf32>\n" +
			"  %q = stablehlo.add %p, %y : tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %q, %s : tensor<3xf32>", f32x3, "[10.0, 20.0, 30.0]"},
		{"operand_dies_here", inputs +
			"  %p = stablehlo.optimization_barrier %a : tensor<3xf32>\n" +
			"  %q = stablehlo.add %p, %y : tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %q, %y : tensor<3xf32>", f32x3, "[11.0, 22.0, 33.0]"},
	})
}

// TestSelectWritesOnlyDeadOperands covers select writing its result into an
// operand's storage: into one that dies there, the predicate's included
// (a select of booleans), never into one read later.
func TestSelectWritesOnlyDeadOperands(t *testing.T) {
	f32x3 := "tensor<3xf32>"
	inputs := cst("x", f32x3, "[1.0, -2.0, 3.0]") + cst("y", f32x3, "[10.0, 20.0, 30.0]") +
		"  %a = stablehlo.add %x, %y : tensor<3xf32>\n" +
		"  %z = stablehlo.subtract %x, %x : tensor<3xf32>\n" +
		"  %p = stablehlo.compare GT, %x, %z, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>\n"
	runOpCases(t, []opCase{
		{"on_true_dies", inputs +
			"  %r = stablehlo.select %p, %a, %y : tensor<3xi1>, tensor<3xf32>", f32x3, "[11.0, 20.0, 33.0]"},
		{"on_true_read_later", inputs +
			"  %s = stablehlo.select %p, %a, %y : tensor<3xi1>, tensor<3xf32>\n" +
			"  %r = stablehlo.subtract %s, %a : tensor<3xf32>", f32x3, "[0.0, 2.0, 0.0]"},
		{"booleans_into_the_predicate", cst("x", "tensor<4xf32>", "[1.0, -2.0, 3.0, -4.0]") +
			"  %z = stablehlo.subtract %x, %x : tensor<4xf32>\n" +
			"  %p = stablehlo.compare GT, %x, %z, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n" +
			"  %c = stablehlo.constant dense<2.0> : tensor<4xf32>\n" +
			"  %q = stablehlo.compare LT, %x, %c, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n" +
			"  %t = stablehlo.not %p : tensor<4xi1>\n" +
			"  %r = stablehlo.select %p, %q, %t : tensor<4xi1>, tensor<4xi1>", "tensor<4xi1>", "[true, true, false, true]"},
	})
}
