package stablehlo

// vectorChunk is the most elements one elementwise kernel call takes: the
// garbage collector must wait for a goroutine inside assembly, which cannot
// be preempted, so a long run returns to Go every few microseconds.
const vectorChunk = 16 << 10

// vectorPrefix sets dst[i] = kind(a[i], b[i]) for add, subtract and
// multiply over the longest prefix of whole 32-byte blocks, with the AVX
// kernels, and returns its length: 0 without AVX, for another kind or for
// fewer elements than a block. The lanes round as the scalar code does.
func vectorPrefix[T float32 | float64](kind binaryKind, dst, a, b []T) int {
	if !haveAVX || (kind != binAdd && kind != binSub && kind != binMul) {
		return 0
	}
	switch d := any(dst).(type) {
	case []float32:
		x, y := any(a).([]float32)[:len(d)], any(b).([]float32)[:len(d)]
		kernel := addVecF32
		if kind == binSub {
			kernel = subVecF32
		} else if kind == binMul {
			kernel = mulVecF32
		}
		return chunked(len(d), 8, func(lo, blocks int) { kernel(&d[lo], &x[lo], &y[lo], blocks) })
	case []float64:
		x, y := any(a).([]float64)[:len(d)], any(b).([]float64)[:len(d)]
		kernel := addVecF64
		if kind == binSub {
			kernel = subVecF64
		} else if kind == binMul {
			kernel = mulVecF64
		}
		return chunked(len(d), 4, func(lo, blocks int) { kernel(&d[lo], &x[lo], &y[lo], blocks) })
	}
	return 0
}

// chunked calls run(lo, blocks) over the whole blocks of lanes elements in
// the first n, at most vectorChunk elements at a time, and returns how many
// elements they cover.
func chunked(n, lanes int, run func(lo, blocks int)) int {
	whole := n / lanes * lanes
	for lo := 0; lo < whole; lo += vectorChunk {
		run(lo, (min(lo+vectorChunk, whole)-lo)/lanes)
	}
	return whole
}
