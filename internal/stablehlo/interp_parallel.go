package stablehlo

import (
	"runtime"
	"sync"
)

// parallelMin is the element count below which splitting work across
// goroutines costs more than it saves.
const parallelMin = 1 << 15

// parallelFor calls f on disjoint [lo, hi) chunks covering [0, n), on
// several goroutines when n is large. f must only touch its own chunk.
func parallelFor(n int, f func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers < 2 {
		f(0, n)
		return
	}
	workers = min(workers, n/(parallelMin/2))
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			// A panic must reach Run's recover, which only sees the
			// calling goroutine: carry it over.
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { panicked = r })
				}
			}()
			f(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	f(0, min(chunk, n))
	wg.Wait()
	if panicked != nil {
		panic(panicked)
	}
}

// reusableOperand returns an operand the op's single result may take over,
// storage and all: the op is its last reader, nothing else shares it, and it
// has the result's type. It returns nil otherwise.
func reusableOperand(op *operation, in []*array) *array {
	for j, a := range in {
		if j < len(op.lastUse) && op.lastUse[j] && !a.shared && a.t.Equal(op.resultTypes[0]) {
			return a
		}
	}
	return nil
}
