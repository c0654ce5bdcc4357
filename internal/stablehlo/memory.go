package stablehlo

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Values are held in the Go heap, so the process's memory limit
// (debug.SetMemoryLimit, or GOMEMLIMIT in its environment) is what the
// interpreter may hold: an op whose results would take the heap's objects
// past it fails with ResourceExhausted, as a device out of memory does,
// instead of growing the process until the kernel kills it, which would end
// every session on it. Garbage counts until it is collected, so a result
// that does not fit first collects it. Only results of at least
// admitThreshold bytes are checked; without a limit nothing is.

const admitThreshold = 16 << 20

// heapObjects is the name of the runtime metric of the bytes of heap
// objects, reachable or not yet collected.
const heapObjects = "/memory/classes/heap/objects:bytes"

// storageSize is how many bytes an element of type e takes in an array.
func (e ElemType) storageSize() int64 {
	switch e.class() {
	case classF32:
		return 4
	case classBool:
		return 1
	case classComplex:
		return 16
	}
	return 8
}

// admit returns nil when n more bytes of values fit under the memory limit.
func admit(n int64) error {
	if n < admitThreshold {
		return nil
	}
	limit := debug.SetMemoryLimit(-1)
	if limit == math.MaxInt64 {
		return nil
	}
	if heapObjectBytes()+n <= limit {
		return nil
	}
	runtime.GC()
	if held := heapObjectBytes(); held+n > limit {
		return errorf(ResourceExhausted, "results of %d bytes do not fit: values hold %d bytes of the process's memory limit of %d (GOMEMLIMIT)", n, held, limit)
	}
	return nil
}

func heapObjectBytes() int64 {
	s := []metrics.Sample{{Name: heapObjects}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}
