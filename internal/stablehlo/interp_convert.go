package stablehlo

import "math"

// convert and bitcast_convert.

func evalConvert(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("convert needs 1 operand")
	}
	rt := op.resultTypes[0]
	if in[0].t.NumElements() != rt.NumElements() {
		return nil, invalidf("convert from %s to %s changes the shape", in[0].t, rt)
	}
	return ev.one(convertArray(in[0], rt)), nil
}

// convertArray converts element by element: float to int truncates toward
// zero and saturates (NaN becomes 0), int to int wraps, anything to i1 is
// "!= 0", complex to real keeps the real part, real to complex has no
// imaginary part.
func convertArray(a *array, t TensorType) *array {
	if a.t.Elem == t.Elem {
		return a.withType(t)
	}
	out := newArray(t)
	if !convertIntegers(out, a) {
		convertEach(out, a)
	}
	out.normalize()
	return out
}

// convertIntegers converts between integer classes a word at a time (the
// caller's normalize then wraps or sign-extends to out's width) and reports
// whether it did.
func convertIntegers(out, a *array) bool {
	switch src, dst := a.t.Elem.class(), out.t.Elem.class(); {
	case src == classUint && dst == classUint:
		copy(out.u, a.u)
	case src == classInt && dst == classInt:
		copy(out.i, a.i)
	case src == classUint && dst == classInt:
		for k, v := range a.u {
			out.i[k] = int64(v)
		}
	case src == classInt && dst == classUint:
		for k, v := range a.i {
			out.u[k] = uint64(v)
		}
	default:
		return false
	}
	return true
}

// convertEach converts a element by element into out.
func convertEach(out, a *array) {
	switch a.t.Elem.class() {
	case classF32:
		convertFloats(out, a.f32)
		return
	case classF64:
		convertFloats(out, a.f64)
		return
	}
	n := a.size()
	src := a.t.Elem.class()
	for k := 0; k < n; k++ {
		switch src {
		case classF32:
			out.setFloat(k, float64(a.f32[k]))
		case classF64:
			out.setFloat(k, a.f64[k])
		case classInt:
			setInteger(out, k, a.i[k])
		case classUint:
			setInteger(out, k, a.u[k])
		case classComplex:
			switch out.t.Elem.class() {
			case classComplex:
				out.c[k] = a.c[k]
			case classBool:
				out.b[k] = a.c[k] != 0
			default:
				out.setFloat(k, real(a.c[k]))
			}
		default:
			setInteger(out, k, boolInt(a.b[k]))
		}
	}
}

// floatToInt converts x to the signed integer type e: toward zero,
// saturating, NaN to 0.
func floatToInt(x float64, e ElemType) int64 {
	return truncSaturating(x, float64(uint64(1)<<(e.bits()-1)))
}

// truncSaturating is floatToInt for the type whose values are [-limit,
// limit), limit being a power of two.
func truncSaturating(x, limit float64) int64 {
	switch {
	case x != x:
		return 0
	case x >= limit:
		return int64(uint64(limit) - 1)
	case x < -limit:
		return -int64(uint64(limit))
	}
	return int64(x)
}

func floatToUint(x float64, e ElemType) uint64 {
	if x != x || x <= 0 {
		return 0
	}
	w := e.bits()
	if x >= 2*float64(uint64(1)<<(w-1)) { // 2^w, exact in float64
		return widthMask(w)
	}
	return uint64(math.Trunc(x))
}

func evalBitcastConvert(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("bitcast_convert needs 1 operand")
	}
	rt := op.resultTypes[0]
	if in[0].t.Elem == Bool || rt.Elem == Bool {
		return bitcastBool(in[0], rt)
	}
	if (in[0].t.Elem.isSubByte() || rt.Elem.isSubByte()) && in[0].t.Elem != rt.Elem {
		return nil, unimplementedf("bitcast_convert from %s to %s: bitcasts of 2- and 4-bit integers are not supported", in[0].t, rt)
	}
	if out, ok := bitcastWords(in[0], rt); ok {
		return ev.one(out), nil
	}
	raw := encodeArray(in[0]).Data
	if int64(len(raw)) != rt.NumElements()*int64(rt.Elem.ByteSize()) {
		return nil, invalidf("bitcast_convert from %s to %s changes the byte size", in[0].t, rt)
	}
	return ev.one(decodeTensor(&Tensor{Type: rt, Data: raw})), nil
}

// bitcastWords is bitcast_convert between f32, f64 and integers of one
// width, element by element without a trip through bytes (float tricks such
// as lgamma's and frexp's do it on every element); false for other types.
func bitcastWords(a *array, rt TensorType) (*array, bool) {
	from, to := a.t.Elem, rt.Elem
	word := func(e ElemType) bool { return e == F32 || e == F64 || e.isInt() }
	if !word(from) || !word(to) || from.ByteSize() != to.ByteSize() || a.t.NumElements() != rt.NumElements() {
		return nil, false
	}
	bits := make([]uint64, a.size())
	switch {
	case from == F32:
		for k, v := range a.f32 {
			bits[k] = uint64(math.Float32bits(v))
		}
	case from == F64:
		for k, v := range a.f64 {
			bits[k] = math.Float64bits(v)
		}
	case from.isSigned():
		mask := uint64(math.MaxUint64) >> (64 - from.bits())
		for k, v := range a.i {
			bits[k] = uint64(v) & mask
		}
	default:
		copyPreemptible(bits, a.u)
	}
	out := &array{t: rt}
	switch {
	case to == F32:
		out.f32 = make([]float32, len(bits))
		for k, b := range bits {
			out.f32[k] = math.Float32frombits(uint32(b))
		}
	case to == F64:
		out.f64 = make([]float64, len(bits))
		for k, b := range bits {
			out.f64[k] = math.Float64frombits(b)
		}
	case to.isSigned():
		out.i = make([]int64, len(bits))
		shift := uint(64 - to.bits())
		for k, b := range bits {
			out.i[k] = int64(b<<shift) >> shift
		}
	default:
		out.u = bits
	}
	return out, true
}

// bitcastBool converts between i1 and wider types the way the spec
// defines: each wide element is as many i1 values, least significant bit
// first, along an extra trailing dimension.
func bitcastBool(a *array, rt TensorType) ([]*array, error) {
	if a.t.Elem == rt.Elem {
		return []*array{a.withType(rt)}, nil
	}
	wide, narrow := rt, a.t
	if rt.Elem == Bool {
		wide, narrow = a.t, rt
	}
	w := int64(wide.Elem.bits())
	if len(narrow.Shape) != len(wide.Shape)+1 || !shapesEqual(narrow.Shape[:len(wide.Shape)], wide.Shape) ||
		narrow.Shape[len(wide.Shape)] != w {
		return nil, invalidf("bitcast_convert from %s to %s changes the bit count", a.t, rt)
	}
	n := int(wide.NumElements())
	size := wide.Elem.ByteSize()
	if rt.Elem == Bool { // wide -> bits
		raw := encodeArray(a).Data
		out := newArray(rt)
		for k := 0; k < n; k++ {
			for bit := 0; bit < int(w); bit++ {
				out.b[k*int(w)+bit] = raw[k*size+bit/8]>>(bit%8)&1 == 1
			}
		}
		return []*array{out}, nil
	}
	raw := make([]byte, n*size) // bits -> wide
	for k := 0; k < n; k++ {
		for bit := 0; bit < int(w); bit++ {
			if a.b[k*int(w)+bit] {
				raw[k*size+bit/8] |= 1 << (bit % 8)
			}
		}
	}
	return []*array{decodeTensor(&Tensor{Type: rt, Data: raw})}, nil
}

// convertFloats converts src into out with one loop per destination class.
func convertFloats[F float32 | float64](out *array, src []F) {
	switch e := out.t.Elem; e.class() {
	case classF32:
		for k, v := range src {
			out.f32[k] = float32(v)
		}
	case classF64:
		for k, v := range src {
			out.f64[k] = float64(v)
		}
	case classInt:
		limit := float64(uint64(1) << (e.bits() - 1))
		for k, v := range src {
			out.i[k] = truncSaturating(float64(v), limit)
		}
	case classUint:
		for k, v := range src {
			out.u[k] = floatToUint(float64(v), e)
		}
	default:
		for k, v := range src {
			out.setFloat(k, float64(v))
		}
	}
}
