package stablehlo

import "math"

// evalFma implements stablehlo.fma (jax.lax.fma, and lax.fmuladd on CPU):
// a*b + c for every element, rounded once to the element type as IEEE 754's
// fusedMultiplyAdd. Every floating-point type is exact, f16, bf16 and the f8
// types included (XLA's CPU backend refuses those).
func evalFma(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, b, c := in[0], in[1], in[2]
	if !a.t.Equal(b.t) || !a.t.Equal(c.t) || !a.t.Equal(op.resultTypes[0]) {
		return nil, invalidf("fma takes operands and a result of one type, not %s, %s and %s -> %s", a.t, b.t, c.t, op.resultTypes[0])
	}
	out := newArray(a.t)
	switch e := a.t.Elem; e.class() {
	case classF64:
		for i := range out.f64 {
			out.f64[i] = math.FMA(a.f64[i], b.f64[i], c.f64[i])
		}
	case classF32:
		for i := range out.f32 {
			s := fmaToOdd(a.f32[i], b.f32[i], c.f32[i])
			if e == F32 {
				out.f32[i] = float32(s)
			} else {
				// The narrow types round from the float32 they are kept in.
				out.f32[i] = float32ToOdd(s)
			}
		}
		out.normalize()
	default:
		return nil, invalidf("fma takes floating-point operands, not %s", a.t.Elem)
	}
	return []*array{out}, nil
}

// fmaToOdd returns a*b + c rounded to float64 by rounding to odd: toward
// zero, then the last bit set when the result is inexact. Rounding that to
// a format at least two bits narrower, as float32 and every narrower type
// are, rounds the exact value once (Boldo and Melquiond), where rounding to
// nearest twice could not. The product of two float32 is exact in float64.
func fmaToOdd(a, b, c float32) float64 {
	p, q := float64(a)*float64(b), float64(c)
	s := p + q
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return s
	}
	// The rounding error of the sum (Knuth's TwoSum), exact.
	bv := s - p
	e := (p - (s - bv)) + (q - bv)
	if e == 0 || math.Float64bits(s)&1 == 1 {
		return s // exact, or already the odd neighbour of the exact value
	}
	return math.Nextafter(s, math.Copysign(math.Inf(1), e))
}

// float32ToOdd rounds s to float32 by rounding to odd, so that rounding the
// result to a narrower type rounds s once.
func float32ToOdd(s float64) float32 {
	r := float32(s)
	switch {
	case math.IsNaN(s) || float64(r) == s:
		return r
	case math.IsInf(float64(r), 0):
		return float32(math.Copysign(math.MaxFloat32, s)) // toward zero
	case math.Float32bits(r)&1 == 1:
		return r
	case float64(r) < s:
		return math.Nextafter32(r, float32(math.Inf(1)))
	default:
		return math.Nextafter32(r, float32(math.Inf(-1)))
	}
}
