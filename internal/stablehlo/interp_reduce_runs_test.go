package stablehlo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtremeRunsMatchTheirDefinition folds arrays full of what decides a
// float maximum or minimum beyond a comparison (NaNs of both signs and two
// payloads, +0 and -0, infinities, repeated values) along each axis, both
// and none, and checks extremeRuns' bits against folding floatMax or
// floatMin element by element in the same order.
func TestExtremeRunsMatchTheirDefinition(t *testing.T) {
	special := []float32{
		float32(math.NaN()), -float32(math.NaN()), math.Float32frombits(0x7fc00001),
		0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1.5, -1.5,
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shape := []int64{7, 9}
	x := make([]float32, 63)
	for trial := range 200 {
		for i := range x {
			if rng.IntN(3) == 0 {
				x[i] = special[rng.IntN(len(special))]
			} else {
				x[i] = float32(rng.IntN(5)) - 2 // many ties
			}
		}
		init := special[trial%len(special)]
		for _, steps := range [][]int{{0, 0}, {1, 0}, {0, 1}, {9, 1}} {
			outputs := 1
			for d, s := range steps {
				outputs += s * int(shape[d]-1)
			}
			for _, isMax := range []bool{true, false} {
				got, want := make([]float32, outputs), make([]float32, outputs)
				for i := range got {
					got[i], want[i] = init, init
				}
				extremeRuns(isMax, got, x, shape, steps)
				pick := floatMin[float32]
				if isMax {
					pick = floatMax[float32]
				}
				for k, o := range mapIndices(shape, steps, 0) {
					want[o] = pick(want[o], x[k])
				}
				for i := range got {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("trial %d, steps %v, max %v: output %d is %v (%#x), want %v (%#x)",
							trial, steps, isMax, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
					}
				}
			}
		}
	}
}
