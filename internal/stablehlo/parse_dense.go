package stablehlo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseFloatLiteral reads a float literal; hex literals are bit patterns of
// the element type (MLIR prints NaN, Inf and inexact values that way).
func parseFloatLiteral(s string, e ElemType) (float64, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		bits, err := strconv.ParseUint(s[2:], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("bad hex float %q", s)
		}
		switch e {
		case F16:
			return float64(f16ToF32(uint16(bits))), nil
		case BF16:
			return float64(bf16ToF32(uint16(bits))), nil
		case F32:
			return float64(math.Float32frombits(uint32(bits))), nil
		case F64:
			return math.Float64frombits(bits), nil
		}
		if f, ok := f8Formats[e]; ok && bits <= 0xff {
			return float64(f.decode(uint8(bits))), nil
		}
		return 0, fmt.Errorf("bad hex float %q for %s", s, e)
	}
	switch s {
	case "inf", "+inf":
		return math.Inf(1), nil
	case "-inf":
		return math.Inf(-1), nil
	case "nan":
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return v, nil
		}
		return 0, fmt.Errorf("bad float %q", s)
	}
	return v, nil
}

// denseArray materializes a dense attribute as an array of type t.
func denseArray(a *Attr, t TensorType) (*array, error) {
	if !t.supported() {
		return nil, unimplementedf("constant of type %s is not supported", t)
	}
	n := int(t.NumElements())
	if a.denseHex != nil {
		size := t.Elem.ByteSize()
		switch len(a.denseHex) {
		case n * size:
			return decodeTensor(&Tensor{Type: t, Data: a.denseHex}), nil
		case size: // splat
			one := decodeTensor(&Tensor{Type: TensorType{Elem: t.Elem}, Data: a.denseHex})
			return broadcastScalar(one, t), nil
		}
		return nil, invalidf("dense hex data has %d bytes, %s needs %d", len(a.denseHex), t, n*size)
	}
	lits := a.denseLits
	if len(lits) != n && len(lits) != 1 {
		return nil, invalidf("dense literal has %d elements, %s needs %d", len(lits), t, n)
	}
	if len(lits) == 1 && n != 1 { // splat: the literal parsed once
		one := newArray(TensorType{Elem: t.Elem})
		if err := setFromLiteral(one, 0, lits[0]); err != nil {
			return nil, err
		}
		return broadcastScalar(one, t), nil
	}
	out := newArray(t)
	for k := 0; k < n; k++ {
		if err := setFromLiteral(out, k, lits[k]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func setFromLiteral(a *array, k int, s string) error {
	e := a.t.Elem
	switch a.t.Elem.class() {
	case classBool:
		switch s {
		case "true", "1":
			a.b[k] = true
		case "false", "0":
		default:
			return invalidf("bad i1 literal %q", s)
		}
	case classInt, classUint:
		v, err := parseIntLiteral(s)
		if err != nil {
			if s == "true" || s == "false" {
				v = map[string]int64{"true": 1}[s]
			} else {
				return invalidf("bad %s literal %q", e, s)
			}
		}
		if a.i != nil {
			a.i[k] = signExtend(e, v)
		} else {
			a.u[k] = maskUint(e, uint64(v))
		}
	case classF32:
		v, err := parseFloatLiteral(s, e)
		if err != nil {
			return invalidf("%v", err)
		}
		a.f32[k] = float32(v)
		if e != F32 {
			a.f32[k] = roundNarrowScalar(e, a.f32[k])
		}
	case classF64:
		v, err := parseFloatLiteral(s, e)
		if err != nil {
			return invalidf("%v", err)
		}
		a.f64[k] = v
	case classComplex:
		re, im, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(s, "("), ")"), ",")
		if !ok || !strings.HasPrefix(s, "(") {
			return invalidf("bad %s literal %q", e, s)
		}
		part := F64
		if e == C64 {
			part = F32
		}
		x, err := parseFloatLiteral(re, part)
		if err != nil {
			return invalidf("%v", err)
		}
		y, err := parseFloatLiteral(im, part)
		if err != nil {
			return invalidf("%v", err)
		}
		if e == C64 {
			x, y = float64(float32(x)), float64(float32(y))
		}
		a.c[k] = complex(x, y)
	}
	return nil
}

// broadcastScalar repeats a one-element array to type t.
func broadcastScalar(one *array, t TensorType) *array {
	return repeatArray(one, t, int(t.NumElements()))
}

// repeatArray returns an array of type t holding a's elements count times
// over, one copy after another.
func repeatArray(a *array, t TensorType, count int) *array {
	out := &array{t: t}
	switch a.t.Elem.class() {
	case classF32:
		out.f32 = repeatPreemptible(a.f32, count)
	case classF64:
		out.f64 = repeatPreemptible(a.f64, count)
	case classInt:
		out.i = repeatPreemptible(a.i, count)
	case classUint:
		out.u = repeatPreemptible(a.u, count)
	case classComplex:
		out.c = repeatPreemptible(a.c, count)
	default:
		out.b = repeatPreemptible(a.b, count)
	}
	return out
}
