package stablehlo

import (
	"math"
	"math/bits"
)

// Elementwise ops. Each kernel switches on the op once and then runs a
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
	return func(ev *evaluator, op *Op, in []*array) ([]*array, error) {
		if len(in) != 2 {
			return nil, invalidf("expected 2 operands, got %d", len(in))
		}
		a, b := in[0], in[1]
		if !a.t.Equal(b.t) || !a.t.Equal(op.resultTypes[0]) {
			return nil, invalidf("operand types %s and %s do not match result %s", a.t, b.t, op.resultTypes[0])
		}
		out := reusableOperand(op, in)
		if out == nil {
			out = newArray(a.t)
		}
		if err := applyBinaryInto(kind, out, a, b); err != nil {
			return nil, err
		}
		return []*array{out}, nil
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
		if kind == binNextAfter && e != F32 {
			for i := range out.f32 {
				out.f32[i] = nextAfter16(e, a.f32[i], b.f32[i])
			}
			return nil
		}
		parallelFor(len(out.f32), func(lo, hi int) {
			binaryFloat(kind, out.f32[lo:hi], a.f32[lo:hi], b.f32[lo:hi])
			roundTo16(e, out.f32[lo:hi])
		})
	case classF64:
		if !binaryDefinedForFloat(kind) {
			return invalidf("op is not defined for %s", e)
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
	case binMax:
		for i := range a {
			dst[i] = floatMax(a[i], b[i])
		}
	case binMin:
		for i := range a {
			dst[i] = floatMin(a[i], b[i])
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

// nextAfter16 steps a bf16 or f16 value one unit toward y.
func nextAfter16(e ElemType, x, y float32) float32 {
	to, from := f32ToBF16, bf16ToF32
	if e == F16 {
		to, from = f32ToF16, f16ToF32
	}
	switch {
	case x != x || y != y:
		return x + y // NaN
	case x == y:
		return y
	case x == 0:
		h := uint16(1)
		if y < 0 {
			h |= 0x8000
		}
		return from(h)
	}
	h := to(x)
	if (x < y) == (x > 0) {
		h++
	} else {
		h--
	}
	return from(h)
}

func nextAfter[T float32 | float64](x, y T) T {
	if f, ok := any(x).(float32); ok {
		return T(math.Nextafter32(f, float32(y)))
	}
	return T(math.Nextafter(float64(x), float64(y)))
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

func binarySigned(kind binaryKind, e ElemType, dst, a, b []int64) bool {
	w := uint64(e.bits())
	b = b[:len(a)]
	dst = dst[:len(a)]
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
	case binDiv:
		for i := range a {
			if b[i] == 0 {
				dst[i] = -1 // XLA: x / 0 = -1 (all bits set)
			} else {
				dst[i] = a[i] / b[i] // MinInt / -1 wraps to MinInt in Go
			}
		}
	case binRem:
		for i := range a {
			if b[i] == 0 {
				dst[i] = a[i] // XLA: x % 0 = x
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
		return false
	}
	return true
}

func powInt(base, exp int64) int64 {
	if exp < 0 {
		switch base {
		case 1:
			return 1
		case -1:
			if exp%2 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	r := int64(1)
	for exp > 0 {
		if exp&1 == 1 {
			r *= base
		}
		base *= base
		exp >>= 1
	}
	return r
}

func binaryUnsigned(kind binaryKind, e ElemType, dst, a, b []uint64) bool {
	w := uint64(e.bits())
	b = b[:len(a)]
	dst = dst[:len(a)]
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
	case binDiv:
		for i := range a {
			if b[i] == 0 {
				dst[i] = math.MaxUint64 // masked to the width by normalize
			} else {
				dst[i] = a[i] / b[i]
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
			r, base, exp := uint64(1), a[i], b[i]
			for exp > 0 {
				if exp&1 == 1 {
					r *= base
				}
				base *= base
				exp >>= 1
			}
			dst[i] = r
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
			if b[i] >= w {
				dst[i] = 0
			} else {
				dst[i] = a[i] << b[i]
			}
		}
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
		return false
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

type unaryKind int

const (
	unNeg unaryKind = iota
	unAbs
	unSign
	unExp
	unExpm1
	unLog
	unLog1p
	unLogistic
	unSqrt
	unRsqrt
	unCbrt
	unTanh
	unSin
	unCos
	unTan
	unFloor
	unCeil
	unRoundAfz
	unRoundEven
	unNot
	unPopcnt
	unClz
	unErf
	unErfInv
	unErfc
	unSinh
	unCosh
	unAsin
	unAcos
	unAtan
	unAsinh
	unAcosh
	unAtanh
	unLgamma
	unDigamma
	unSquare
)

var unaryOps = map[string]unaryKind{
	"negate": unNeg, "abs": unAbs, "sign": unSign, "exponential": unExp,
	"exponential_minus_one": unExpm1, "log": unLog, "log_plus_one": unLog1p,
	"logistic": unLogistic, "sqrt": unSqrt, "rsqrt": unRsqrt, "cbrt": unCbrt,
	"tanh": unTanh, "sine": unSin, "cosine": unCos, "tan": unTan, "floor": unFloor,
	"ceil": unCeil, "round_nearest_afz": unRoundAfz, "round_nearest_even": unRoundEven,
	"not": unNot, "popcnt": unPopcnt, "count_leading_zeros": unClz,
	"chlo.erf": unErf, "chlo.erf_inv": unErfInv, "chlo.erfc": unErfc,
	"chlo.sinh": unSinh, "chlo.cosh": unCosh, "chlo.asin": unAsin, "chlo.acos": unAcos,
	"chlo.atan": unAtan, "chlo.asinh": unAsinh, "chlo.acosh": unAcosh, "chlo.atanh": unAtanh,
	"chlo.lgamma": unLgamma, "chlo.digamma": unDigamma, "chlo.square": unSquare, "chlo.tan": unTan,
}

func floatUnaryFunc(kind unaryKind) func(float64) float64 {
	switch kind {
	case unNeg:
		return func(x float64) float64 { return -x }
	case unAbs:
		return math.Abs
	case unSign:
		return func(x float64) float64 {
			if x > 0 {
				return 1
			} else if x < 0 {
				return -1
			}
			return x // ±0 and NaN
		}
	case unExp:
		return math.Exp
	case unExpm1:
		return math.Expm1
	case unLog:
		return math.Log
	case unLog1p:
		return math.Log1p
	case unLogistic:
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	case unSqrt:
		return math.Sqrt
	case unRsqrt:
		return func(x float64) float64 { return 1 / math.Sqrt(x) }
	case unCbrt:
		return math.Cbrt
	case unTanh:
		return math.Tanh
	case unSin:
		return math.Sin
	case unCos:
		return math.Cos
	case unTan:
		return math.Tan
	case unFloor:
		return math.Floor
	case unCeil:
		return math.Ceil
	case unRoundAfz:
		return math.Round
	case unRoundEven:
		return math.RoundToEven
	case unErf:
		return math.Erf
	case unErfInv:
		return math.Erfinv
	case unErfc:
		return math.Erfc
	case unSinh:
		return math.Sinh
	case unCosh:
		return math.Cosh
	case unAsin:
		return math.Asin
	case unAcos:
		return math.Acos
	case unAtan:
		return math.Atan
	case unAsinh:
		return math.Asinh
	case unAcosh:
		return math.Acosh
	case unAtanh:
		return math.Atanh
	case unLgamma:
		return func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	case unDigamma:
		return digamma
	case unSquare:
		return func(x float64) float64 { return x * x }
	}
	return nil
}

// digamma is the derivative of lgamma: reflection for x < 0.5, recurrence
// up to x >= 6, then the asymptotic series.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case x <= 0 && x == math.Floor(x):
		return math.NaN() // poles
	case x < 0.5:
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	r := 0.0
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	series := f * (1.0/12 - f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
	return r + math.Log(x) - 0.5/x - series
}

func evalUnary(kind unaryKind) evalFunc {
	return func(ev *evaluator, op *Op, in []*array) ([]*array, error) {
		if len(in) != 1 {
			return nil, invalidf("expected 1 operand, got %d", len(in))
		}
		a := in[0]
		if !a.t.Equal(op.resultTypes[0]) {
			return nil, invalidf("operand type %s does not match result %s", a.t, op.resultTypes[0])
		}
		out := reusableOperand(op, in)
		if out == nil {
			out = newArray(a.t)
		}
		e := a.t.Elem
		switch e.class() {
		case classF32:
			switch kind { // keep the common cheap ones in f32
			case unNeg:
				for i, x := range a.f32 {
					out.f32[i] = -x
				}
			case unAbs:
				for i, x := range a.f32 {
					out.f32[i] = float32(math.Abs(float64(x)))
				}
			default:
				f := floatUnaryFunc(kind)
				if f == nil {
					return nil, invalidf("op is not defined for %s", e)
				}
				for i, x := range a.f32 {
					out.f32[i] = float32(f(float64(x)))
				}
			}
			roundTo16(e, out.f32)
		case classF64:
			f := floatUnaryFunc(kind)
			if f == nil {
				return nil, invalidf("op is not defined for %s", e)
			}
			for i, x := range a.f64 {
				out.f64[i] = f(x)
			}
		case classInt:
			w := e.bits()
			for i, x := range a.i {
				switch kind {
				case unNeg:
					out.i[i] = -x
				case unAbs:
					if x < 0 {
						x = -x
					}
					out.i[i] = x
				case unSign:
					out.i[i] = int64(compareInts(x, 0))
				case unNot:
					out.i[i] = ^x
				case unSquare:
					out.i[i] = x * x
				case unPopcnt:
					out.i[i] = int64(bits.OnesCount64(uint64(x) & widthMask(w)))
				case unClz:
					out.i[i] = int64(bits.LeadingZeros64(uint64(x)&widthMask(w)) - (64 - w))
				default:
					return nil, invalidf("op is not defined for %s", e)
				}
			}
			out.normalize()
		case classUint:
			w := e.bits()
			for i, x := range a.u {
				switch kind {
				case unNeg:
					out.u[i] = -x
				case unAbs:
					out.u[i] = x
				case unSign:
					out.u[i] = uint64(min(x, 1))
				case unNot:
					out.u[i] = ^x
				case unSquare:
					out.u[i] = x * x
				case unPopcnt:
					out.u[i] = uint64(bits.OnesCount64(x))
				case unClz:
					out.u[i] = uint64(bits.LeadingZeros64(x) - (64 - w))
				default:
					return nil, invalidf("op is not defined for %s", e)
				}
			}
			out.normalize()
		default:
			switch kind {
			case unNot:
				for i, x := range a.b {
					out.b[i] = !x
				}
			case unAbs, unPopcnt:
				copy(out.b, a.b)
			case unNeg:
				copy(out.b, a.b) // -1 wraps to 1 in one bit
			default:
				return nil, invalidf("op is not defined for %s", e)
			}
		}
		return []*array{out}, nil
	}
}

func widthMask(w int) uint64 {
	if w >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(w) - 1
}

func compareInts(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func evalIsFinite(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	a := in[0]
	out := newArray(op.resultTypes[0])
	if out.b == nil || out.size() != a.size() {
		return nil, invalidf("is_finite must return i1 of the operand's shape")
	}
	switch a.t.Elem.class() {
	case classF32:
		for i, x := range a.f32 {
			out.b[i] = !math.IsInf(float64(x), 0) && x == x
		}
	case classF64:
		for i, x := range a.f64 {
			out.b[i] = !math.IsInf(x, 0) && x == x
		}
	default:
		return nil, invalidf("is_finite needs a float operand")
	}
	return []*array{out}, nil
}
