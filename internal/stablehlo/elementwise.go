package stablehlo

// vectorChunk is the most elements one elementwise kernel call takes: the
// garbage collector must wait for a goroutine inside assembly, which cannot
// be preempted, so a long run returns to Go every few microseconds.
const vectorChunk = 16 << 10

// vectorBinary sets dst[i] = kind(a[i], b[i]) for add, subtract and
// multiply with the AVX kernels and reports whether it did (not without
// AVX, nor for another kind). The lanes round as the scalar code does.
// Every element goes through the vector instruction, the last partial block
// through a padded copy: which operand's NaN a result carries (the first's)
// must not depend on the array's length, and in scalar code it depends on
// the order the compiler gave the operands (it differs under -race).
func vectorBinary[T float32 | float64](kind binaryKind, dst, a, b []T) bool {
	if !haveAVX || (kind != binAdd && kind != binSub && kind != binMul) {
		return false
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
		vectorRuns(d, x, y, 8, kernel)
	case []float64:
		x, y := any(a).([]float64)[:len(d)], any(b).([]float64)[:len(d)]
		kernel := addVecF64
		if kind == binSub {
			kernel = subVecF64
		} else if kind == binMul {
			kernel = mulVecF64
		}
		vectorRuns(d, x, y, 4, kernel)
	}
	return true
}

// vectorRuns calls kernel over d, x and y (of one length) in whole blocks
// of lanes elements, at most vectorChunk at a time, and over the rest
// padded to a block.
func vectorRuns[T float32 | float64](d, x, y []T, lanes int, kernel func(dst, a, b *T, blocks int)) {
	whole := len(d) / lanes * lanes
	for lo := 0; lo < whole; lo += vectorChunk {
		kernel(&d[lo], &x[lo], &y[lo], (min(lo+vectorChunk, whole)-lo)/lanes)
	}
	if whole < len(d) {
		var pd, px, py [8]T
		copy(px[:], x[whole:])
		copy(py[:], y[whole:])
		kernel(&pd[0], &px[0], &py[0], 1)
		copy(d[whole:], pd[:])
	}
}
