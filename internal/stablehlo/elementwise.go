package stablehlo

import "unsafe"

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
	n := len(dst)
	a, b = a[:n], b[:n]
	var zero T
	lanes := 32 / int(unsafe.Sizeof(zero))
	whole := n / lanes * lanes
	for lo := 0; lo < whole; lo += vectorChunk {
		vectorKernel(kind, &dst[lo], &a[lo], &b[lo], (min(lo+vectorChunk, whole)-lo)/lanes)
	}
	if whole < n {
		var pd, px, py [8]T
		copy(px[:], a[whole:])
		copy(py[:], b[whole:])
		vectorKernel(kind, &pd[0], &px[0], &py[0], 1)
		copy(dst[whole:], pd[:])
	}
	return true
}

// vectorKernel calls kind's kernel for T. The calls are direct, so that
// the padded block above stays on the stack (through a function value its
// arrays escaped: three allocations per call, most of a one-element
// scatter's time).
func vectorKernel[T float32 | float64](kind binaryKind, dst, a, b *T, blocks int) {
	switch d := any(dst).(type) {
	case *float32:
		x, y := any(a).(*float32), any(b).(*float32)
		switch kind {
		case binAdd:
			addVecF32(d, x, y, blocks)
		case binSub:
			subVecF32(d, x, y, blocks)
		default:
			mulVecF32(d, x, y, blocks)
		}
	case *float64:
		x, y := any(a).(*float64), any(b).(*float64)
		switch kind {
		case binAdd:
			addVecF64(d, x, y, blocks)
		case binSub:
			subVecF64(d, x, y, blocks)
		default:
			mulVecF64(d, x, y, blocks)
		}
	}
}
