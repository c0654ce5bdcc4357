package stablehlo

import "math"

// bf16 and f16 values live in float32 slices inside the interpreter; these
// helpers convert at the byte boundary and round after each arithmetic op,
// which is what XLA's CPU backend does (compute in f32, round to 16 bits).

func bf16ToF32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

func f32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN: keep it quiet and non-zero
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1 // round to nearest even
	return uint16(b >> 16)
}

func f16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0:
		v := float32(mant) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 { // subnormal half (or zero)
		shift := uint(14 - e)
		if shift > 25 {
			return sign
		}
		full := mant | 0x800000
		if exp == 0 {
			return sign // float32 subnormals are far below half's range
		}
		m := full >> shift
		rem := full & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && m&1 == 1) {
			m++
		}
		return sign | uint16(m)
	}
	h := uint32(sign) | uint32(e)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++
	}
	return uint16(h)
}

func roundBF16(f float32) float32 { return bf16ToF32(f32ToBF16(f)) }
func roundF16(f float32) float32  { return f16ToF32(f32ToF16(f)) }

// roundNarrow rounds every value in place when e is a float type narrower
// than float32 (16 or 8 bits).
func roundNarrow(e ElemType, v []float32) {
	switch e {
	case BF16:
		for i, x := range v {
			v[i] = roundBF16(x)
		}
	case F16:
		for i, x := range v {
			v[i] = roundF16(x)
		}
	default:
		if f, ok := f8Formats[e]; ok {
			for i, x := range v {
				v[i] = f.round(x)
			}
		}
	}
}

// roundNarrowScalar rounds v to e, a float type narrower than float32.
func roundNarrowScalar(e ElemType, v float32) float32 {
	switch e {
	case BF16:
		return roundBF16(v)
	case F16:
		return roundF16(v)
	}
	return f8Formats[e].round(v)
}
