package stablehlo

import "math"

// The 8-bit float types live in float32 slices inside the interpreter, as
// f16 and bf16 do: converted at the byte boundary, rounded after each op.
// Three families share one encoding scheme: IEEE-like (f8E5M2, f8E4M3,
// f8E3M4: infinities and NaNs at the largest exponent), FN (f8E4M3FN: no
// infinity, only S.1111.111 is NaN) and FNUZ (no infinity, no -0, 0x80 is
// the one NaN). Conversions round to nearest even; a value beyond the
// largest finite one becomes ±Inf where the type has it and NaN where it
// does not, as XLA and ml_dtypes convert.

type f8Family int

const (
	f8IEEE f8Family = iota
	f8FN
	f8FNUZ
)

type f8Format struct {
	expBits, mantBits, bias int
	family                  f8Family
}

var f8Formats = map[ElemType]f8Format{
	F8E5M2:        {5, 2, 15, f8IEEE},
	F8E4M3:        {4, 3, 7, f8IEEE},
	F8E3M4:        {3, 4, 3, f8IEEE},
	F8E4M3FN:      {4, 3, 7, f8FN},
	F8E4M3FNUZ:    {4, 3, 8, f8FNUZ},
	F8E5M2FNUZ:    {5, 2, 16, f8FNUZ},
	F8E4M3B11FNUZ: {4, 3, 11, f8FNUZ},
}

func (f f8Format) expMax() int  { return 1<<f.expBits - 1 }
func (f f8Format) mantMax() int { return 1<<f.mantBits - 1 }

// maxFinite is the largest finite value.
func (f f8Format) maxFinite() float64 {
	exp, mant := f.expMax(), f.mantMax()
	switch f.family {
	case f8IEEE:
		exp-- // the top exponent holds Inf and NaN
	case f8FN:
		mant-- // S.1111.111 is NaN
	}
	return math.Ldexp(1+float64(mant)/float64(f.mantMax()+1), exp-f.bias)
}

func (f f8Format) nan(negative bool) uint8 {
	switch f.family {
	case f8FNUZ:
		return 0x80
	case f8FN:
		return f.sign(negative) | 0x7f
	}
	return f.sign(negative) | uint8(f.expMax()<<f.mantBits) | 1<<(f.mantBits-1)
}

// zero is ±0's bits; FNUZ types have no -0.
func (f f8Format) zero(negative bool) uint8 {
	if f.family == f8FNUZ {
		return 0
	}
	return f.sign(negative)
}

func (f f8Format) sign(negative bool) uint8 {
	if negative {
		return 0x80
	}
	return 0
}

// decode returns the value of bits b.
func (f f8Format) decode(b uint8) float32 {
	if f.family == f8FNUZ && b == 0x80 {
		return float32(math.NaN())
	}
	exp, mant := int(b>>f.mantBits)&f.expMax(), int(b)&f.mantMax()
	var v float64
	switch {
	case f.family == f8FN && exp == f.expMax() && mant == f.mantMax(),
		f.family == f8IEEE && exp == f.expMax() && mant != 0:
		return float32(math.NaN())
	case f.family == f8IEEE && exp == f.expMax():
		v = math.Inf(1)
	case exp == 0:
		v = math.Ldexp(float64(mant), 1-f.bias-f.mantBits)
	default:
		v = math.Ldexp(float64(mant+f.mantMax()+1), exp-f.bias-f.mantBits)
	}
	if b&0x80 != 0 {
		v = -v
	}
	return float32(v)
}

// encode rounds x to the nearest value of the format, ties to even, and
// returns its bits.
func (f f8Format) encode(x float32) uint8 {
	neg := math.Signbit(float64(x))
	a := math.Abs(float64(x))
	switch {
	case math.IsNaN(a):
		return f.nan(neg)
	case a == 0:
		return f.zero(neg)
	}
	// The step between neighbours at a's magnitude: that of the subnormals
	// below the smallest normal exponent.
	_, e := math.Frexp(a) // a = frac * 2^e, frac in [0.5, 1)
	exp := max(e-1, 1-f.bias)
	r := math.Ldexp(math.RoundToEven(math.Ldexp(a, f.mantBits-exp)), exp-f.mantBits)
	if r > f.maxFinite() {
		if f.family == f8IEEE {
			return f.sign(neg) | uint8(f.expMax()<<f.mantBits)
		}
		return f.nan(neg)
	}
	if r == 0 {
		return f.zero(neg)
	}
	frac, e := math.Frexp(r)
	var bits int
	if e-1 < 1-f.bias { // subnormal
		bits = int(math.Ldexp(r, f.bias-1+f.mantBits))
	} else {
		bits = (e-1+f.bias)<<f.mantBits | int(math.Ldexp(frac, f.mantBits+1))&f.mantMax()
	}
	return f.sign(neg) | uint8(bits)
}

// round brings x to the format's nearest value.
func (f f8Format) round(x float32) float32 { return f.decode(f.encode(x)) }
