package stablehlo

import (
	"cmp"
	"math"
	"math/bits"
)

// Unary elementwise ops (stablehlo and the chlo math ops JAX emits).

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

func evalUnary(kind unaryKind) evalFunc {
	return func(ev *evaluator, op *operation, in []*array) ([]*array, error) {
		if len(in) != 1 {
			return nil, invalidf("expected 1 operand, got %d", len(in))
		}
		a := in[0]
		if a.t.Elem.isComplex() {
			return evalComplexUnary(kind, op, a)
		}
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
			roundNarrow(e, out.f32)
		case classF64:
			f := floatUnaryFunc(kind)
			if f == nil {
				return nil, invalidf("op is not defined for %s", e)
			}
			for i, x := range a.f64 {
				out.f64[i] = f(x)
			}
		case classInt:
			if !unaryInteger(kind, e.bits(), out.i, a.i) {
				return nil, invalidf("op is not defined for %s", e)
			}
			out.normalize()
		case classUint:
			if !unaryInteger(kind, e.bits(), out.u, a.u) {
				return nil, invalidf("op is not defined for %s", e)
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
		return ev.one(out), nil
	}
}

func widthMask(w int) uint64 {
	if w >= 64 {
		return math.MaxUint64
	}
	return 1<<uint(w) - 1
}

// unaryInteger computes dst = kind(src) for integers of width w, signed
// or not; it reports false for an op integers do not have.
func unaryInteger[T int64 | uint64](kind unaryKind, w int, dst, src []T) bool {
	for i, x := range src {
		switch kind {
		case unNeg:
			dst[i] = -x
		case unAbs:
			if x < 0 {
				x = -x
			}
			dst[i] = x
		case unSign:
			dst[i] = T(cmp.Compare(x, 0))
		case unNot:
			dst[i] = ^x
		case unSquare:
			dst[i] = x * x
		case unPopcnt:
			dst[i] = T(bits.OnesCount64(uint64(x) & widthMask(w)))
		case unClz:
			dst[i] = T(bits.LeadingZeros64(uint64(x)&widthMask(w)) - (64 - w))
		default:
			return false
		}
	}
	return true
}

func evalIsFinite(ev *evaluator, op *operation, in []*array) ([]*array, error) {
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
	return ev.one(out), nil
}
