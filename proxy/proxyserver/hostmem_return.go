package proxyserver

import (
	"runtime/debug"
	"sync"
	"time"
)

// Host buffers and arrays made from them live on the Go heap. The collector
// lets the heap grow to twice what is live before it frees garbage, and
// hands freed pages back to the system slowly, so after a 1 GiB transfer the
// process would keep gigabytes it no longer uses. memoryReturn frees them and
// hands them back once large buffers have gone and none has gone for a
// second: a burst of transfers pays for it once, after the burst, and reuses
// warm pages within it (handed back after 200 ms, between the transfers of a
// loop, their page faults took a fifth to half of the server's CPU a 64 MiB
// transfer; docs/dataplane.md).
var memoryReturn = &osReturn{threshold: 64 << 20, quiet: time.Second, free: debug.FreeOSMemory}

// osReturn runs free once quiet has passed since the last release, if at
// least threshold bytes were released since free last ran.
type osReturn struct {
	threshold int64
	quiet     time.Duration
	free      func()

	mu      sync.Mutex
	pending int64
	timer   *time.Timer
}

// released records that n bytes of host memory are no longer used.
func (r *osReturn) released(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pending += n
	if r.pending < r.threshold {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.quiet, r.run)
		return
	}
	r.timer.Reset(r.quiet)
}

func (r *osReturn) run() {
	r.mu.Lock()
	r.pending = 0
	r.mu.Unlock()
	r.free()
}
