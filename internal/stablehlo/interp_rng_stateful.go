package stablehlo

import (
	"math"
	"math/rand/v2"
)

// evalRng implements stablehlo.rng (lax.rng_uniform): a stateful generator
// whose numbers the specification leaves to the implementation. As on XLA,
// every call draws new ones (here from the process's randomly seeded
// generator): UNIFORM in [a, b) for integers and floats, NORMAL with mean a
// and standard deviation b for floats. Programs that need reproducible
// numbers use jax.random, whose rng_bit_generator and threefry are exact.
func evalRng(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, b := in[0], in[1]
	rt := op.resultTypes[0]
	if !a.t.Equal(scalarType(rt)) || !b.t.Equal(scalarType(rt)) {
		return nil, invalidf("rng takes scalar bounds of its result's element type %s, not %s and %s", rt.Elem, a.t, b.t)
	}
	dist := "UNIFORM"
	if d := op.attr("rng_distribution", "distribution"); d != nil {
		dist = enumWord(d)
	}
	out := newArray(rt)
	switch c := rt.Elem.class(); {
	case dist == "UNIFORM" && (c == classF32 || c == classF64):
		lo, hi := a.floatAt(0), b.floatAt(0)
		for i := range out.size() {
			out.setFloat(i, uniformFloat(rt.Elem, lo, hi))
		}
	case dist == "NORMAL" && (c == classF32 || c == classF64):
		mean, std := a.floatAt(0), b.floatAt(0)
		for i := range out.size() {
			out.setFloat(i, mean+std*rand.NormFloat64())
		}
		out.normalize()
	case dist == "UNIFORM" && c == classInt:
		lo, hi := a.i[0], b.i[0]
		for i := range out.i {
			out.i[i] = lo
			if hi > lo {
				out.i[i] = lo + int64(rand.Uint64N(uint64(hi)-uint64(lo)))
			}
		}
	case dist == "UNIFORM" && c == classUint:
		lo, hi := a.u[0], b.u[0]
		for i := range out.u {
			out.u[i] = lo
			if hi > lo {
				out.u[i] = lo + rand.Uint64N(hi-lo)
			}
		}
	default:
		return nil, unimplementedf("rng with distribution %s of %s is not supported", dist, rt.Elem)
	}
	return []*array{out}, nil
}

// uniformFloat draws from [lo, hi) as e rounds it: a draw that rounds up to
// hi is drawn again. Empty or reversed bounds give lo, as XLA's expansion does.
func uniformFloat(e ElemType, lo, hi float64) float64 {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return lo
	}
	for {
		v := lo + (hi-lo)*rand.Float64()
		switch e {
		case F64:
		case F32:
			v = float64(float32(v))
		default:
			v = float64(roundNarrowScalar(e, float32(v)))
		}
		if v < hi {
			return v
		}
	}
}
