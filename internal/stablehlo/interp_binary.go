package stablehlo

import "math"

// Binary elementwise ops. Each kernel switches on the op once and then runs a
// plain loop over a typed slice, so the hot path has no per-element dispatch.

type binaryKind int

const (
	binAdd binaryKind = iota
	binSub
	binMul
	binDiv
	binRem
	binPow
	binMax
	binMin
	binAtan2
	binAnd
	binOr
	binXor
	binShl
	binShrA
	binShrL
	binNextAfter
)

var binaryOps = map[string]binaryKind{
	"add": binAdd, "subtract": binSub, "multiply": binMul, "divide": binDiv,
	"remainder": binRem, "power": binPow, "maximum": binMax, "minimum": binMin,
	"atan2": binAtan2, "and": binAnd, "or": binOr, "xor": binXor, "chlo.next_after": binNextAfter,
	"shift_left": binShl, "shift_right_arithmetic": binShrA, "shift_right_logical": binShrL,
}

func evalBinary(kind binaryKind) evalFunc {
	return func(ev *evaluator, op *operation, in []*array) ([]*array, error) {
		if len(in) != 2 {
			return nil, invalidf("expected 2 operands, got %d", len(in))
		}
		a, b := in[0], in[1]
		if !a.t.Equal(b.t) || !a.t.Equal(op.resultTypes[0]) {
			return nil, invalidf("operand types %s and %s do not match result %s", a.t, b.t, op.resultTypes[0])
		}
		out := reusableOperand(op, in)
		if out == nil {
			out = newUninitializedArray(a.t) // applyBinaryInto writes every element
		}
		if err := applyBinaryInto(kind, out, a, b); err != nil {
			return nil, err
		}
		return ev.one(out), nil
	}
}

func applyBinary(kind binaryKind, a, b *array) (*array, error) {
	out := newArray(a.t)
	return out, applyBinaryInto(kind, out, a, b)
}

// applyBinaryInto computes out = kind(a, b); out may be a or b.
func applyBinaryInto(kind binaryKind, out, a, b *array) error {
	e := a.t.Elem
	switch e.class() {
	case classF32:
		if !binaryDefinedForFloat(kind) {
			return invalidf("op is not defined for %s", e)
		}
		if kind == binNextAfter && e.isNarrowFloat() {
			if e != F16 && e != BF16 {
				return unimplementedf("next_after is not implemented for %s", e)
			}
			for i := range out.f32 {
				out.f32[i] = nextAfter16(e, a.f32[i], b.f32[i])
			}
			return nil
		}
		if len(out.f32) < parallelMin { // no closure to allocate
			binaryFloat(kind, out.f32, a.f32, b.f32)
			roundNarrow(e, out.f32)
			return nil
		}
		parallelFor(len(out.f32), func(lo, hi int) {
			binaryFloat(kind, out.f32[lo:hi], a.f32[lo:hi], b.f32[lo:hi])
			roundNarrow(e, out.f32[lo:hi])
		})
	case classF64:
		if !binaryDefinedForFloat(kind) {
			return invalidf("op is not defined for %s", e)
		}
		if len(out.f64) < parallelMin {
			binaryFloat(kind, out.f64, a.f64, b.f64)
			return nil
		}
		parallelFor(len(out.f64), func(lo, hi int) {
			binaryFloat(kind, out.f64[lo:hi], a.f64[lo:hi], b.f64[lo:hi])
		})
	case classInt:
		if !binarySigned(kind, e, out.i, a.i, b.i) {
			return invalidf("op is not defined for %s", e)
		}
		out.normalize()
	case classUint:
		if !binaryUnsigned(kind, e, out.u, a.u, b.u) {
			return invalidf("op is not defined for %s", e)
		}
		out.normalize()
	case classComplex:
		if !binaryComplex(kind, out.c, a.c, b.c) {
			return invalidf("op is not defined for %s", e)
		}
		out.normalize()
	default:
		if !binaryBool(kind, out.b, a.b, b.b) {
			return invalidf("op is not defined for %s", e)
		}
	}
	return nil
}

func binaryDefinedForFloat(kind binaryKind) bool {
	switch kind {
	case binAnd, binOr, binXor, binShl, binShrA, binShrL:
		return false
	}
	return true
}

func binaryFloat[T float32 | float64](kind binaryKind, dst, a, b []T) bool {
	b = b[:len(a)]
	dst = dst[:len(a)]
	switch kind {
	case binAdd:
		addFloat(dst, a, b)
	case binSub:
		subFloat(dst, a, b)
	case binMul:
		mulFloat(dst, a, b)
	case binDiv:
		for i := range a {
			dst[i] = a[i] / b[i]
		}
	case binRem:
		for i := range a {
			dst[i] = T(math.Mod(float64(a[i]), float64(b[i])))
		}
	case binPow:
		for i := range a {
			dst[i] = T(math.Pow(float64(a[i]), float64(b[i])))
		}
	case binMax: // floatMax decides only NaNs and equal values (+0, -0)
		for i, x := range a {
			switch y := b[i]; {
			case x > y:
				dst[i] = x
			case x < y:
				dst[i] = y
			default:
				dst[i] = floatMax(x, y)
			}
		}
	case binMin:
		for i, x := range a {
			switch y := b[i]; {
			case x < y:
				dst[i] = x
			case x > y:
				dst[i] = y
			default:
				dst[i] = floatMin(x, y)
			}
		}
	case binAtan2:
		for i := range a {
			dst[i] = T(math.Atan2(float64(a[i]), float64(b[i])))
		}
	case binNextAfter:
		for i := range a {
			dst[i] = nextAfter(a[i], b[i])
		}
	default:
		return false
	}
	return true
}

// The hottest kernels run AVX lanes where the processor has them
// (vectorBinary) and are unrolled by four otherwise: it halves the loop
// overhead and lets the CPU overlap the independent element operations.

func addFloat[T float32 | float64](dst, a, b []T) {
	n := len(a)
	if vectorBinary(binAdd, dst[:n], a, b[:n]) {
		return
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = x[0]+y[0], x[1]+y[1], x[2]+y[2], x[3]+y[3]
	}
	for ; i < n; i++ {
		dst[i] = a[i] + b[i]
	}
}

func subFloat[T float32 | float64](dst, a, b []T) {
	n := len(a)
	if vectorBinary(binSub, dst[:n], a, b[:n]) {
		return
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = x[0]-y[0], x[1]-y[1], x[2]-y[2], x[3]-y[3]
	}
	for ; i < n; i++ {
		dst[i] = a[i] - b[i]
	}
}

func mulFloat[T float32 | float64](dst, a, b []T) {
	n := len(a)
	if vectorBinary(binMul, dst[:n], a, b[:n]) {
		return
	}
	i := 0
	for ; i+4 <= n; i += 4 {
		d, x, y := dst[i:i+4:i+4], a[i:i+4:i+4], b[i:i+4:i+4]
		d[0], d[1], d[2], d[3] = x[0]*y[0], x[1]*y[1], x[2]*y[2], x[3]*y[3]
	}
	for ; i < n; i++ {
		dst[i] = a[i] * b[i]
	}
}

// floatMax propagates NaN, as XLA's maximum does.
func floatMax[T float32 | float64](x, y T) T {
	switch {
	case x != x:
		return x
	case y != y:
		return y
	case x > y:
		return x
	case x == y && x == 0 && !math.Signbit(float64(x)):
		return x // max(+0, -0) = +0
	}
	return y
}

func floatMin[T float32 | float64](x, y T) T {
	switch {
	case x != x:
		return x
	case y != y:
		return y
	case x < y:
		return x
	case x == y && x == 0 && math.Signbit(float64(x)):
		return x
	}
	return y
}

// binaryInteger runs the integer ops whose definition does not depend on
// signedness (for division and remainder by zero XLA's results, all bits
// set and the dividend, are the same bits either way); w is the width.
func binaryInteger[T int64 | uint64](kind binaryKind, w uint64, dst, a, b []T) bool {
	b = b[:len(a)]
	dst = dst[:len(a)]
	switch kind {
	case binAdd, binSub, binMul:
		ring(kind, dst, a, b)
	case binDiv:
		for i := range a {
			if b[i] == 0 {
				dst[i] = ^T(0) // masked to the width by normalize
			} else {
				dst[i] = a[i] / b[i] // MinInt / -1 wraps to MinInt in Go
			}
		}
	case binRem:
		for i := range a {
			if b[i] == 0 {
				dst[i] = a[i]
			} else {
				dst[i] = a[i] % b[i]
			}
		}
	case binPow:
		for i := range a {
			dst[i] = powInt(a[i], b[i])
		}
	case binMax:
		for i := range a {
			dst[i] = max(a[i], b[i])
		}
	case binMin:
		for i := range a {
			dst[i] = min(a[i], b[i])
		}
	case binAnd:
		for i := range a {
			dst[i] = a[i] & b[i]
		}
	case binOr:
		for i := range a {
			dst[i] = a[i] | b[i]
		}
	case binXor:
		for i := range a {
			dst[i] = a[i] ^ b[i]
		}
	case binShl:
		for i := range a {
			if uint64(b[i]) >= w {
				dst[i] = 0
			} else {
				dst[i] = a[i] << uint64(b[i])
			}
		}
	default:
		return false
	}
	return true
}

// ring computes dst = kind(a, b) for add, subtract and multiply, which
// integers and complex numbers define alike.
func ring[T int64 | uint64 | complex128](kind binaryKind, dst, a, b []T) {
	switch kind {
	case binAdd:
		for i := range a {
			dst[i] = a[i] + b[i]
		}
	case binSub:
		for i := range a {
			dst[i] = a[i] - b[i]
		}
	case binMul:
		for i := range a {
			dst[i] = a[i] * b[i]
		}
	}
}

// powInt is base**exp by squaring; a negative exponent (signed only)
// leaves 1, -1 or 0 as the integer result.
func powInt[T int64 | uint64](base, exp T) T {
	if exp < 0 {
		switch base {
		case 1:
			return 1
		case ^T(0): // -1
			if exp%2 == 0 {
				return 1
			}
			return base
		}
		return 0
	}
	r := T(1)
	for exp > 0 {
		if exp&1 == 1 {
			r *= base
		}
		base *= base
		exp >>= 1
	}
	return r
}

// binarySigned and binaryUnsigned add the shifts right, which do depend
// on signedness, to binaryInteger.
func binarySigned(kind binaryKind, e ElemType, dst, a, b []int64) bool {
	w := uint64(e.bits())
	b = b[:len(a)]
	dst = dst[:len(a)]
	switch kind {
	case binShrA:
		for i := range a {
			if uint64(b[i]) >= w {
				dst[i] = a[i] >> 63
			} else {
				dst[i] = a[i] >> uint64(b[i])
			}
		}
	case binShrL:
		mask := uint64(1)<<w - 1
		if w == 64 {
			mask = math.MaxUint64
		}
		for i := range a {
			if uint64(b[i]) >= w {
				dst[i] = 0
			} else {
				dst[i] = int64((uint64(a[i]) & mask) >> uint64(b[i]))
			}
		}
	default:
		return binaryInteger(kind, w, dst, a, b)
	}
	return true
}

func binaryUnsigned(kind binaryKind, e ElemType, dst, a, b []uint64) bool {
	w := uint64(e.bits())
	b = b[:len(a)]
	dst = dst[:len(a)]
	switch kind {
	case binShrL:
		for i := range a {
			if b[i] >= w {
				dst[i] = 0
			} else {
				dst[i] = a[i] >> b[i]
			}
		}
	case binShrA:
		for i := range a {
			s := signExtendBits(a[i], w) // reinterpret as signed of width w
			sh := b[i]
			if sh >= w {
				sh = 63
			}
			dst[i] = uint64(s >> sh)
		}
	default:
		return binaryInteger(kind, w, dst, a, b)
	}
	return true
}

func signExtendBits(v uint64, w uint64) int64 {
	return int64(v<<(64-w)) >> (64 - w)
}

func binaryBool(kind binaryKind, dst, a, b []bool) bool {
	b = b[:len(a)]
	switch kind {
	case binAnd, binMin, binMul:
		for i := range a {
			dst[i] = a[i] && b[i]
		}
	case binOr, binMax, binAdd:
		for i := range a {
			dst[i] = a[i] || b[i]
		}
	case binXor, binSub:
		for i := range a {
			dst[i] = a[i] != b[i]
		}
	default:
		return false
	}
	return true
}

// Unary ops.
