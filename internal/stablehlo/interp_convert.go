package stablehlo

import "math"

// convert and bitcast_convert.

func evalConvert(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("convert needs 1 operand")
	}
	rt := op.resultTypes[0]
	if in[0].t.NumElements() != rt.NumElements() {
		return nil, invalidf("convert from %s to %s changes the shape", in[0].t, rt)
	}
	return []*array{convertArray(in[0], rt)}, nil
}

// convertArray converts element by element: float to int truncates toward
// zero and saturates (NaN becomes 0), int to int wraps, anything to i1 is
// "!= 0".
func convertArray(a *array, t TensorType) *array {
	if a.t.Elem == t.Elem {
		return a.withType(t)
	}
	out := newArray(t)
	n := a.size()
	src := a.t.Elem.class()
	dst := t.Elem.class()
	for k := 0; k < n; k++ {
		switch src {
		case classF32, classF64:
			var x float64
			if src == classF32 {
				x = float64(a.f32[k])
			} else {
				x = a.f64[k]
			}
			switch dst {
			case classF32:
				out.f32[k] = float32(x)
			case classF64:
				out.f64[k] = x
			case classInt:
				out.i[k] = floatToInt(x, t.Elem)
			case classUint:
				out.u[k] = floatToUint(x, t.Elem)
			default:
				out.b[k] = x != 0
			}
		case classInt:
			x := a.i[k]
			switch dst {
			case classF32:
				out.f32[k] = float32(x)
			case classF64:
				out.f64[k] = float64(x)
			case classInt:
				out.i[k] = x
			case classUint:
				out.u[k] = uint64(x)
			default:
				out.b[k] = x != 0
			}
		case classUint:
			x := a.u[k]
			switch dst {
			case classF32:
				out.f32[k] = float32(x)
			case classF64:
				out.f64[k] = float64(x)
			case classInt:
				out.i[k] = int64(x)
			case classUint:
				out.u[k] = x
			default:
				out.b[k] = x != 0
			}
		default:
			x := a.b[k]
			v := boolInt(x)
			switch dst {
			case classF32:
				out.f32[k] = float32(v)
			case classF64:
				out.f64[k] = float64(v)
			case classInt:
				out.i[k] = v
			case classUint:
				out.u[k] = uint64(v)
			default:
				out.b[k] = x
			}
		}
	}
	out.normalize()
	return out
}

func floatToInt(x float64, e ElemType) int64 {
	if x != x {
		return 0
	}
	w := e.bits()
	limit := math.Ldexp(1, w-1) // 2^(w-1), exact in float64
	switch {
	case x >= limit:
		return int64(uint64(1)<<(w-1) - 1)
	case x < -limit:
		return -int64(uint64(1) << (w - 1))
	}
	return int64(math.Trunc(x))
}

func floatToUint(x float64, e ElemType) uint64 {
	if x != x || x <= 0 {
		return 0
	}
	w := e.bits()
	if x >= math.Ldexp(1, w) {
		return widthMask(w)
	}
	return uint64(math.Trunc(x))
}

func evalBitcastConvert(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("bitcast_convert needs 1 operand")
	}
	rt := op.resultTypes[0]
	if in[0].t.Elem == Bool || rt.Elem == Bool {
		return nil, unimplementedf("bitcast_convert of i1 is not supported")
	}
	raw := encodeArray(in[0]).Data
	if int64(len(raw)) != rt.NumElements()*int64(rt.Elem.ByteSize()) {
		return nil, invalidf("bitcast_convert from %s to %s changes the byte size", in[0].t, rt)
	}
	return []*array{decodeTensor(&Tensor{Type: rt, Data: raw})}, nil
}
