package stablehlo

import (
	"math"
	"strings"
)

// select_and_scatter (the gradient of max pooling) and reduce_precision.

func evalSelectAndScatter(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	operand, source, init := in[0], in[1], in[2]
	rt := op.resultTypes[0]
	shape := operand.t.Shape
	rank := len(shape)
	if !rt.Equal(operand.t) || init.size() != 1 || source.t.Elem != rt.Elem || len(source.t.Shape) != rank {
		return nil, invalidf("select_and_scatter operand types do not match")
	}
	window, err := op.ints("window_dimensions")
	if err != nil {
		return nil, err
	}
	wstrides, err := op.optInts("window_strides")
	if err != nil {
		return nil, err
	}
	if wstrides == nil {
		wstrides = make([]int64, rank)
		for i := range wstrides {
			wstrides[i] = 1
		}
	}
	pad, err := op.optInts("padding")
	if err != nil {
		return nil, err
	}
	if pad == nil {
		pad = make([]int64, 2*rank)
	}
	if len(window) != rank || len(wstrides) != rank || len(pad) != 2*rank {
		return nil, invalidf("window attributes do not match rank %d", rank)
	}
	for d := 0; d < rank; d++ {
		if window[d] <= 0 || wstrides[d] <= 0 {
			return nil, invalidf("window sizes and strides must be positive")
		}
	}
	selectBody, scatterBody := op.regions[0], op.regions[1]
	if len(selectBody.args) != 2 || len(selectBody.rets) != 1 {
		return nil, invalidf("select body must take two values and return one")
	}
	scatter, err := newReducer(ev, scatterBody, 1)
	if err != nil {
		return nil, err
	}
	out := broadcastScalar(init, rt)
	st := strides(shape)
	s := 0
	var ferr error
	forEachIndex(source.t.Shape, func(si []int64) {
		if ferr != nil {
			return
		}
		best := -1
		forEachIndex(window, func(wi []int64) {
			if ferr != nil {
				return
			}
			p := 0
			for d := 0; d < rank; d++ {
				c := si[d]*wstrides[d] + wi[d] - pad[2*d]
				if c < 0 || c >= shape[d] {
					return // padding never wins the selection
				}
				p += int(c) * st[d]
			}
			if best < 0 {
				best = p
				return
			}
			res, err := ev.runRegion(selectBody, []*array{scalarAt(operand, best), scalarAt(operand, p)})
			if err != nil {
				ferr = err
				return
			}
			if res[0].b == nil || res[0].size() != 1 {
				ferr = invalidf("select body must return an i1 scalar")
				return
			}
			if !res[0].b[0] {
				best = p
			}
		})
		if best >= 0 && ferr == nil {
			ferr = scatter.fold([]*array{out}, best, []*array{source}, s)
		}
		s++
	})
	if ferr != nil {
		return nil, ferr
	}
	return []*array{out}, nil
}

// evalReducePrecision rounds floats to exponent_bits/mantissa_bits as XLA
// does: round to nearest even on the mantissa, then overflow to infinity
// and flush values below the reduced normal range to zero; NaNs stay NaN.
func evalReducePrecision(ev *evaluator, op *Op, in []*array) ([]*array, error) {
	a := in[0]
	ebits, mbits := int64(-1), int64(-1)
	if f := op.attrs["format"]; f != nil { // pretty form: format = e5m10
		var e, m int64
		if _, err := sscanFormat(f.Str, &e, &m); err != nil {
			return nil, invalidf("bad reduce_precision format %q", f.Str)
		}
		ebits, mbits = e, m
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
		roundTo16(a.t.Elem, out.f32)
	case classF64:
		for i, x := range a.f64 {
			out.f64[i] = reducePrecision(x, int(ebits), int(mbits))
		}
	}
	return []*array{out}, nil
}

func sscanFormat(s string, e, m *int64) (int, error) {
	rest, found := strings.CutPrefix(s, "e")
	if !found {
		return 0, invalidf("format")
	}
	es, ms, ok := strings.Cut(rest, "m")
	if !ok {
		return 0, invalidf("format")
	}
	var err error
	if *e, err = parseIntLiteral(es); err != nil {
		return 0, err
	}
	if *m, err = parseIntLiteral(ms); err != nil {
		return 0, err
	}
	return 2, nil
}

// reducePrecision works on the float64 bit pattern, which holds f32, f16
// and bf16 values exactly.
func reducePrecision(x float64, ebits, mbits int) float64 {
	if math.IsNaN(x) {
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
	}
	return 11, 52
}
