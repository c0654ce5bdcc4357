package stablehlo

import (
	"math"
	"strings"
)

// evalReducePrecision rounds floats to exponent_bits/mantissa_bits as XLA
// does: round to nearest even on the mantissa, then overflow to infinity
// and flush values below the reduced normal range to zero; NaNs stay NaN.
func evalReducePrecision(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a := in[0]
	ebits, mbits := int64(-1), int64(-1)
	if f := op.attrs["format"]; f != nil { // pretty form: format = e5m10
		var err error
		if ebits, mbits, err = parsePrecisionFormat(f.Str); err != nil {
			return nil, err
		}
	} else {
		var err error
		if ebits, err = op.int1("exponent_bits"); err != nil {
			return nil, err
		}
		if mbits, err = op.int1("mantissa_bits"); err != nil {
			return nil, err
		}
	}
	if ebits < 1 || mbits < 0 || !a.t.Elem.isFloat() || !a.t.Equal(op.resultTypes[0]) {
		return nil, invalidf("bad reduce_precision operands")
	}
	// Bits the source type already lacks need no reduction (this keeps,
	// e.g., f32 subnormals when reducing f32 to e8m23).
	srcE, srcM := floatFormat(a.t.Elem)
	if int(ebits) >= srcE {
		ebits = 11
	}
	if int(mbits) >= srcM {
		mbits = 52
	}
	out := newArray(a.t)
	switch a.t.Elem.class() {
	case classF32:
		for i, x := range a.f32 {
			out.f32[i] = float32(reducePrecision(float64(x), int(ebits), int(mbits)))
		}
		roundNarrow(a.t.Elem, out.f32)
	case classF64:
		for i, x := range a.f64 {
			out.f64[i] = reducePrecision(x, int(ebits), int(mbits))
		}
	}
	return []*array{out}, nil
}

// parsePrecisionFormat reads the pretty form's "e5m10".
func parsePrecisionFormat(s string) (ebits, mbits int64, err error) {
	rest, ok1 := strings.CutPrefix(s, "e")
	es, ms, ok2 := strings.Cut(rest, "m")
	if !ok1 || !ok2 {
		return 0, 0, invalidf("bad reduce_precision format %q", s)
	}
	if ebits, err = parseIntLiteral(es); err != nil {
		return 0, 0, invalidf("bad reduce_precision format %q", s)
	}
	if mbits, err = parseIntLiteral(ms); err != nil {
		return 0, 0, invalidf("bad reduce_precision format %q", s)
	}
	return ebits, mbits, nil
}

// reducePrecision works on the float64 bit pattern, which holds f32, f16
// and bf16 values exactly.
func reducePrecision(x float64, ebits, mbits int) float64 {
	if math.IsNaN(x) {
		if mbits == 0 { // no mantissa bits left to mark a NaN
			return math.Copysign(math.Inf(1), x)
		}
		return x
	}
	const srcMant, srcExpBits = 52, 11
	bits := math.Float64bits(x)
	if mbits < srcMant {
		shift := uint(srcMant - mbits)
		last := uint64(1) << shift
		bias := (last >> 1) - 1 + (bits&last)>>shift
		bits = (bits + bias) &^ (last - 1)
	}
	if ebits < srcExpBits {
		const expMask = uint64(0x7ff) << srcMant
		srcBias := int64(1023)
		redBias := int64(1)<<(ebits-1) - 1
		exp := int64((bits & expMask) >> srcMant)
		sign := bits & (1 << 63)
		switch {
		case exp > srcBias+redBias:
			bits = sign | expMask // infinity
		case exp <= srcBias-redBias:
			bits = sign // flushed to signed zero
		}
	}
	return math.Float64frombits(bits)
}

// floatFormat returns the exponent and explicit mantissa widths of e.
func floatFormat(e ElemType) (expBits, mantBits int) {
	switch e {
	case F16:
		return 5, 10
	case BF16:
		return 8, 7
	case F32:
		return 8, 23
	case F64:
		return 11, 52
	}
	f := f8Formats[e]
	return f.expBits, f.mantBits
}
