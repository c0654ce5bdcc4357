package stablehlo

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGatherRunsMatchesIndexList compares the run-copying gather with an
// element-by-element walk, over steps that are contiguous, repeated
// (0), reversed (negative) and strided, so that every kind of inner run and
// of merged dimensions is taken.
func TestFillRunsMatchesIndexList(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	src := make([]int, 4096)
	for i := range src {
		src[i] = i
	}
	for trial := range 500 {
		rank := r.IntN(4)
		shape, step := make([]int64, rank), make([]int, rank)
		contiguous := 1
		for d := rank - 1; d >= 0; d-- {
			shape[d] = int64(r.IntN(4))
			switch r.IntN(4) {
			case 0:
				step[d] = contiguous
			case 1:
				step[d] = 0
			case 2:
				step[d] = -contiguous
			default:
				step[d] = 1 + r.IntN(5)
			}
			contiguous *= int(max(shape[d], 1))
		}
		base := 2048
		want := []int{}
		walkIndex(shape, func(idx []int64) bool {
			p := base
			for d, i := range idx {
				p += int(i) * step[d]
			}
			want = append(want, src[p])
			return true
		})
		got := make([]int, len(want))
		fillRuns(got, src, shape, step, base)
		if !cmp.Equal(want, got) {
			t.Fatalf("trial %d: shape %v step %v: got %v, want %v", trial, shape, step, got, want)
		}
	}
}
