package stablehlo

import (
	"math"
	"math/cmplx"
)

// Complex values: the elementwise ops on complex<f32> and complex<f64>, and
// real, imag and complex, which take them apart and build them. Both types
// compute in complex128; complex<f32> results are rounded part by part
// (array.normalize), as XLA's CPU backend computes them in float pairs.

// binaryComplex computes dst = kind(a, b) and reports false for an op
// complex numbers do not have (ordering, bitwise, remainder).
func binaryComplex(kind binaryKind, dst, a, b []complex128) bool {
	b = b[:len(a)]
	dst = dst[:len(a)]
	switch kind {
	case binAdd, binSub, binMul:
		ring(kind, dst, a, b)
	case binDiv:
		for i := range a {
			dst[i] = a[i] / b[i]
		}
	case binPow:
		for i := range a {
			dst[i] = complexPow(a[i], b[i])
		}
	default:
		return false
	}
	return true
}

// combineComplex is combine's complex case: simpleBody lets only add and
// multiply through for complex values.
func combineComplex(kind binaryKind, a, b complex128) complex128 {
	if kind == binMul {
		return a * b
	}
	return a + b
}

// complexPow is a**b, with 0**0 = 1 as XLA defines it.
func complexPow(a, b complex128) complex128 {
	if b == 0 {
		return 1
	}
	return cmplx.Pow(a, b)
}

// complexUnaryFunc returns the complex form of a unary op whose result is
// complex, or nil when the op has none (abs is separate: its result is real).
func complexUnaryFunc(kind unaryKind) func(complex128) complex128 {
	switch kind {
	case unNeg:
		return func(z complex128) complex128 { return -z }
	case unSign:
		return func(z complex128) complex128 {
			if cmplx.IsNaN(z) {
				return cmplx.NaN()
			}
			if z == 0 {
				return 0
			}
			r := cmplx.Abs(z)
			return complex(real(z)/r, imag(z)/r)
		}
	case unExp:
		return cmplx.Exp
	case unExpm1:
		return complexExpm1
	case unLog:
		return cmplx.Log
	case unLog1p:
		return complexLog1p
	case unLogistic:
		return func(z complex128) complex128 { return 1 / (1 + cmplx.Exp(-z)) }
	case unSqrt:
		return cmplx.Sqrt
	case unRsqrt:
		return func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }
	case unTanh:
		return cmplx.Tanh
	case unSin:
		return cmplx.Sin
	case unCos:
		return cmplx.Cos
	case unTan:
		return cmplx.Tan
	case unSinh:
		return cmplx.Sinh
	case unCosh:
		return cmplx.Cosh
	case unAsin:
		return cmplx.Asin
	case unAcos:
		return cmplx.Acos
	case unAtan:
		return cmplx.Atan
	case unAsinh:
		return cmplx.Asinh
	case unAcosh:
		return cmplx.Acosh
	case unAtanh:
		return cmplx.Atanh
	case unSquare:
		return func(z complex128) complex128 { return z * z }
	}
	return nil
}

// complexExpm1 is exp(z) - 1 without the cancellation of computing both
// for small z: expm1(x)·cos(y) + (cos(y) - 1) + i·exp(x)·sin(y), where
// cos(y) - 1 = -2·sin²(y/2).
func complexExpm1(z complex128) complex128 {
	x, y := real(z), imag(z)
	s := math.Sin(y / 2)
	return complex(math.Expm1(x)*math.Cos(y)-2*s*s, math.Exp(x)*math.Sin(y))
}

// complexLog1p is log(1 + z), keeping the precision of small z in the real
// part: log|1+z| = log1p(x·(2+x) + y²)/2.
func complexLog1p(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.Abs(x) < 0.5 && math.Abs(y) < 0.5 {
		return complex(math.Log1p(x*(2+x)+y*y)/2, math.Atan2(y, 1+x))
	}
	return cmplx.Log(1 + z)
}

// evalComplexUnary runs a unary op on a complex operand: abs gives the
// magnitude (a real result); the others give complex results.
func evalComplexUnary(kind unaryKind, op *operation, a *array) ([]*array, error) {
	rt := op.resultTypes[0]
	if kind == unAbs {
		if rt.Elem != complexPart(a.t.Elem) || !shapesEqual(rt.Shape, a.t.Shape) {
			return nil, invalidf("abs of %s must be %s of its shape, not %s", a.t, complexPart(a.t.Elem), rt)
		}
		out := newArray(rt)
		for i, z := range a.c {
			out.setFloat(i, cmplx.Abs(z))
		}
		return []*array{out}, nil
	}
	if !a.t.Equal(rt) {
		return nil, invalidf("operand type %s does not match result %s", a.t, rt)
	}
	f := complexUnaryFunc(kind)
	if f == nil {
		return nil, invalidf("op is not defined for %s", a.t.Elem)
	}
	out := newArray(rt)
	for i, z := range a.c {
		out.c[i] = f(z)
	}
	out.normalize()
	return []*array{out}, nil
}

// complexPart is the element type of each part of a complex type.
func complexPart(e ElemType) ElemType {
	if e == C64 {
		return F32
	}
	return F64
}

// complexOf is the complex type whose parts are e, or ElemInvalid.
func complexOf(e ElemType) ElemType {
	switch e {
	case F32:
		return C64
	case F64:
		return C128
	}
	return ElemInvalid
}

func evalReal(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	return complexPartOf(op, in, func(z complex128) float64 { return real(z) })
}

func evalImag(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	return complexPartOf(op, in, func(z complex128) float64 { return imag(z) })
}

// complexPartOf runs real or imag: part of each complex element, or of a
// real operand, itself (real) or zeros (imag).
func complexPartOf(op *operation, in []*array, part func(complex128) float64) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("expected 1 operand, got %d", len(in))
	}
	a, rt := in[0], op.resultTypes[0]
	want := a.t.Elem
	if want.isComplex() {
		want = complexPart(want)
	}
	if !want.isFloat() || rt.Elem != want || !shapesEqual(rt.Shape, a.t.Shape) {
		return nil, invalidf("%s of %s cannot be %s", op.Name, a.t, rt)
	}
	out := newArray(rt)
	for i := range out.size() {
		var z complex128
		if a.t.Elem.isComplex() {
			z = a.c[i]
		} else {
			z = complex(a.floatAt(i), 0)
		}
		out.setFloat(i, part(z))
	}
	out.normalize()
	return []*array{out}, nil
}

// evalComplex builds complex values from their real and imaginary parts.
func evalComplex(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 {
		return nil, invalidf("complex needs 2 operands, got %d", len(in))
	}
	re, im, rt := in[0], in[1], op.resultTypes[0]
	if !re.t.Equal(im.t) || complexOf(re.t.Elem) != rt.Elem || !shapesEqual(rt.Shape, re.t.Shape) {
		return nil, invalidf("complex of %s and %s cannot be %s", re.t, im.t, rt)
	}
	out := newArray(rt)
	for i := range out.c {
		out.c[i] = complex(re.floatAt(i), im.floatAt(i))
	}
	return []*array{out}, nil
}

// floatAt reads element k of a float array as float64.
func (a *array) floatAt(k int) float64 {
	if a.t.Elem.class() == classF64 {
		return a.f64[k]
	}
	return float64(a.f32[k])
}
