package stablehlo

import (
	"sync/atomic"
	"testing"
)

func TestParallelForCoversRangeOnce(t *testing.T) {
	for _, n := range []int{0, 1, parallelMin - 1, parallelMin, 3*parallelMin + 7} {
		seen := make([]int32, n)
		parallelFor(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&seen[i], 1)
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

func TestParallelForCarriesPanics(t *testing.T) {
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	const n = 4 * parallelMin
	parallelFor(n, func(lo, hi int) {
		if hi == n { // the last chunk runs on another goroutine when GOMAXPROCS > 1
			panic("boom")
		}
	})
	t.Fatal("parallelFor returned normally")
}
