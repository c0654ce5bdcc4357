package stablehlo

import (
	"slices"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

func TestPreemptibleCopiesYield(t *testing.T) {
	n := 8 * copyPiece
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i)
	}
	dst := make([]float32, n)
	if !testenv.YieldsDuring(func() { copyPreemptible(dst, src) }) {
		t.Error("copyPreemptible of 8 pieces never let another goroutine run")
	}
	if !slices.Equal(dst, src) {
		t.Error("copyPreemptible did not copy every element")
	}
	var rep []float32
	if !testenv.YieldsDuring(func() { rep = repeatPreemptible(src[:3], n) }) {
		t.Error("repeatPreemptible never let another goroutine run")
	}
	if want := slices.Repeat(src[:3], n); !slices.Equal(rep, want) {
		t.Error("repeatPreemptible differs from slices.Repeat")
	}
}

func TestPreemptibleEdges(t *testing.T) {
	if got := copyPreemptible(make([]int64, 2), []int64{1, 2, 3}); got != 2 {
		t.Errorf("copyPreemptible into 2 of 3 copied %d", got)
	}
	if got := clonePreemptible([]bool{}); got != nil {
		t.Errorf("clone of an empty slice = %v, want nil", got)
	}
	if got := clonePreemptible([]uint64{7, 8}); !slices.Equal(got, []uint64{7, 8}) {
		t.Errorf("clone = %v", got)
	}
	for _, c := range []struct{ s, count int }{{0, 5}, {2, 0}, {1, 1}, {3, 7}} {
		s := make([]complex128, c.s)
		for i := range s {
			s[i] = complex(float64(i), 1)
		}
		if got, want := repeatPreemptible(s, c.count), slices.Repeat(s, c.count); !slices.Equal(got, want) {
			t.Errorf("repeat %d elements %d times: %v, want %v", c.s, c.count, got, want)
		}
	}
}
