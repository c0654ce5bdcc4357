package stablehlo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTransposeTiles: transposes and other strided walks big enough for
// the tiled path fill every element as the plain walk (forEachRun) does,
// and the tiled path takes the transposes it is for.
func TestTransposeTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		shape []int64
		perm  []int
		tiled bool
	}{
		{[]int64{64, 96}, []int{1, 0}, true},
		{[]int64{8, 33, 4, 40}, []int{0, 2, 3, 1}, true}, // a strided inner dimension, 33 rows
		{[]int64{4, 17, 3, 64}, []int{2, 3, 0, 1}, true}, // the contiguous one further out
		{[]int64{2, 50, 70}, []int{0, 2, 1}, true},       // tiles cut at both ends
		{[]int64{40, 20, 8}, []int{0, 2, 1}, false},      // the contiguous dimension under a tile
		{[]int64{4, 64, 64}, []int{0, 1, 2}, false},      // no transpose: runs
		{[]int64{3, 200, 9}, []int{0, 2, 1}, false},      // inner dimension under a tile
	} {
		t.Run(fmt.Sprint(c.shape, c.perm), func(t *testing.T) {
			n := 1
			for _, d := range c.shape {
				n *= int(d)
			}
			src := make([]int32, n+7)
			for i := range src {
				src[i] = rng.Int32()
			}
			from := strides(c.shape)
			shape, step := make([]int64, len(c.perm)), make([]int, len(c.perm))
			for i, p := range c.perm {
				shape[i], step[i] = c.shape[p], from[p]
			}
			want := make([]int32, n)
			forEachRun(shape, step, 7, func(k, pos, m, s int) {
				for j := range m {
					want[k+j] = src[pos+j*s]
				}
			})
			got := make([]int32, n)
			if tiled := transposeTiles(got, src, shape, step, 7); tiled != c.tiled {
				t.Errorf("tiled %v, want %v", tiled, c.tiled)
			}
			fillRuns(got, src, shape, step, 7)
			if !slices.Equal(got, want) {
				t.Error("fillRuns differs from the plain walk")
			}
		})
	}
}
