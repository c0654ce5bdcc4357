package testenv

import (
	"runtime"
	"sync/atomic"
)

// YieldsDuring reports whether another goroutine ran while work did, with
// the runtime held to one processor meanwhile: only a yield inside work (a
// blocking call, runtime.Gosched) lets one run, so a long loop of copies
// that never yields reports false.
func YieldsDuring(work func()) bool {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var working atomic.Bool
	var ran atomic.Int64
	working.Store(true)
	go func() {
		for working.Load() {
			ran.Add(1)
			runtime.Gosched()
		}
	}()
	runtime.Gosched() // let it start
	before := ran.Load()
	work()
	working.Store(false)
	return ran.Load() > before
}
