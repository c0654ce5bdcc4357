package stablehlo

import (
	"strconv"
	"strings"
)

// convolution with general dimension numbers, padding, strides, lhs/rhs
// dilation, window reversal and feature/batch grouping, computed directly
// from the StableHLO spec's definition (a reference, not a fast kernel);
// float convolutions without batch groups run as matrix products instead
// (interp_conv_matmul.go).

type convDims struct {
	inBatch, inFeature   int
	inSpatial            []int
	kIn, kOut            int
	kSpatial             []int
	outBatch, outFeature int
	outSpatial           []int
}

// parseConvDims reads "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]".
func parseConvDims(s string) (convDims, error) {
	var d convDims
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '<'); i >= 0 && i < strings.IndexByte(s, '[') { // #stablehlo.conv<...>
		s = strings.TrimSuffix(s[i+1:], ">")
	}
	lhs, rest, ok1 := strings.Cut(s, "x")
	rhs, out, ok2 := strings.Cut(rest, "->")
	if !ok1 || !ok2 {
		return d, invalidf("bad convolution dimension numbers %q", s)
	}
	parse := func(part string, letters string) (map[byte]int, []int, error) {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "[") || !strings.HasSuffix(part, "]") {
			return nil, nil, invalidf("bad convolution dimension list %q", part)
		}
		named := map[byte]int{}
		var spatial []int
		items := strings.Split(part[1:len(part)-1], ",")
		for pos, it := range items {
			it = strings.TrimSpace(it)
			if len(it) == 1 && strings.Contains(letters, it) {
				if _, dup := named[it[0]]; dup {
					return nil, nil, invalidf("repeated %q in %q", it, part)
				}
				named[it[0]] = pos
				continue
			}
			k, err := strconv.Atoi(it)
			if err != nil || k < 0 || k >= len(items) {
				return nil, nil, invalidf("bad convolution dimension %q", it)
			}
			for len(spatial) <= k {
				spatial = append(spatial, -1)
			}
			spatial[k] = pos
		}
		if len(named) != 2 {
			return nil, nil, invalidf("convolution dimension list %q needs %s", part, letters)
		}
		for _, p := range spatial {
			if p < 0 {
				return nil, nil, invalidf("convolution dimension list %q skips a spatial dimension", part)
			}
		}
		return named, spatial, nil
	}
	in, inSp, err := parse(lhs, "bf")
	if err != nil {
		return d, err
	}
	k, kSp, err := parse(rhs, "io")
	if err != nil {
		return d, err
	}
	o, oSp, err := parse(out, "bf")
	if err != nil {
		return d, err
	}
	if len(inSp) != len(kSp) || len(inSp) != len(oSp) {
		return d, invalidf("convolution spatial ranks differ")
	}
	d = convDims{in['b'], in['f'], inSp, k['i'], k['o'], kSp, o['b'], o['f'], oSp}
	return d, nil
}

func evalConvolution(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 {
		return nil, invalidf("convolution needs 2 operands")
	}
	a := op.attr("dimension_numbers", "dim_numbers")
	if a == nil {
		return nil, invalidf("missing dimension numbers")
	}
	d, err := parseConvDims(a.Raw)
	if err != nil {
		return nil, err
	}
	rt := op.resultTypes[0]
	lhs := convertArray(in[0], TensorType{Elem: rt.Elem, Shape: in[0].t.Shape})
	rhs := convertArray(in[1], TensorType{Elem: rt.Elem, Shape: in[1].t.Shape})
	ns := len(d.inSpatial)
	if len(lhs.t.Shape) != ns+2 || len(rhs.t.Shape) != ns+2 || len(rt.Shape) != ns+2 {
		return nil, invalidf("convolution operand ranks do not match the dimension numbers")
	}
	window := op.attrs["window"]
	get := func(generic, pretty string, def int64) ([]int64, error) {
		var v *Attr
		if window != nil && window.Kind == AttrDict {
			v = window.Dict[pretty]
		}
		if v == nil {
			v = op.attrs[generic]
		}
		if v == nil {
			out := make([]int64, ns)
			for i := range out {
				out[i] = def
			}
			return out, nil
		}
		if v.Kind == AttrList && len(v.List) > 0 && v.List[0].Kind == AttrList { // [[lo, hi], ...]
			var flat []int64
			for _, p := range v.List {
				x, ok := p.Ints()
				if !ok {
					return nil, invalidf("bad %s", pretty)
				}
				flat = append(flat, x...)
			}
			return flat, nil
		}
		if v.Kind == AttrList && len(v.List) > 0 && v.List[0].Kind == AttrBool {
			out := make([]int64, len(v.List))
			for i, b := range v.List {
				out[i] = boolInt(b.Bool)
			}
			return out, nil
		}
		x, ok := v.Ints()
		if !ok {
			if v.Kind == AttrDense { // window_reversal = dense<[false, true]>
				for _, lit := range v.denseLits {
					x = append(x, map[string]int64{"true": 1}[lit])
				}
				return x, nil
			}
			return nil, invalidf("bad %s", pretty)
		}
		return x, nil
	}
	stride, err := get("window_strides", "stride", 1)
	if err != nil {
		return nil, err
	}
	pad, err := get("padding", "pad", 0)
	if err != nil {
		return nil, err
	}
	if len(pad) == ns && ns > 0 { // defaulted: one zero per dim, need pairs
		pad = make([]int64, 2*ns)
	}
	lhsDil, err := get("lhs_dilation", "lhs_dilate", 1)
	if err != nil {
		return nil, err
	}
	rhsDil, err := get("rhs_dilation", "rhs_dilate", 1)
	if err != nil {
		return nil, err
	}
	reverse, err := get("window_reversal", "reverse", 0)
	if err != nil {
		return nil, err
	}
	if len(stride) != ns || len(pad) != 2*ns || len(lhsDil) != ns || len(rhsDil) != ns || len(reverse) != ns {
		return nil, invalidf("convolution window attributes do not match %d spatial dims", ns)
	}
	groups, batchGroups := int64(1), int64(1)
	if g := op.attrs["feature_group_count"]; g != nil {
		groups = g.Int
	}
	if g := op.attrs["batch_group_count"]; g != nil {
		batchGroups = g.Int
	}
	ls, ks, os := lhs.t.Shape, rhs.t.Shape, rt.Shape
	C, O := ls[d.inFeature], ks[d.kOut]
	N := ls[d.inBatch]
	if groups < 1 || batchGroups < 1 || C%groups != 0 || O%groups != 0 || O%batchGroups != 0 || N%batchGroups != 0 ||
		ks[d.kIn] != C/groups || os[d.outFeature] != O || os[d.outBatch] != N/batchGroups {
		return nil, invalidf("convolution feature or batch sizes do not match")
	}
	for i := 0; i < ns; i++ {
		if stride[i] < 1 || lhsDil[i] < 1 || rhsDil[i] < 1 {
			return nil, invalidf("convolution strides and dilations must be positive")
		}
	}
	out := newArray(rt)
	w := convWindow{d: d, stride: stride, pad: pad, lhsDil: lhsDil, rhsDil: rhsDil, reverse: reverse, groups: groups}
	if batchGroups == 1 && w.asMatmul(ev, lhs, rhs, out) {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		return []*array{out}, nil
	}
	lst, kst := strides(ls), strides(ks)
	kSpatialShape := make([]int64, ns)
	for i, dim := range d.kSpatial {
		kSpatialShape[i] = ks[dim]
	}
	cPerGroup, oPerGroup, oPerBatchGroup := C/groups, O/groups, O/batchGroups
	outPos := 0
	err = ev.forEach(os, func(oi []int64) {
		bOut, fOut := oi[d.outBatch], oi[d.outFeature]
		g := fOut / oPerGroup
		bIn := (fOut/oPerBatchGroup)*(N/batchGroups) + bOut
		_ = ev.forEach(kSpatialShape, func(kw []int64) {
			lBase := int(bIn) * lst[d.inBatch]
			kBase := int(fOut) * kst[d.kOut]
			for i := 0; i < ns; i++ {
				p := oi[d.outSpatial[i]]*stride[i] + kw[i]*rhsDil[i] - pad[2*i]
				if p < 0 || p%lhsDil[i] != 0 || p/lhsDil[i] >= ls[d.inSpatial[i]] {
					return // padding or a dilation hole
				}
				lBase += int(p/lhsDil[i]) * lst[d.inSpatial[i]]
				k := kw[i]
				if reverse[i] != 0 {
					k = kSpatialShape[i] - 1 - k
				}
				kBase += int(k) * kst[d.kSpatial[i]]
			}
			for ci := int64(0); ci < cPerGroup; ci++ {
				li := lBase + int(g*cPerGroup+ci)*lst[d.inFeature]
				ki := kBase + int(ci)*kst[d.kIn]
				switch rt.Elem.class() {
				case classF32:
					out.f32[outPos] += lhs.f32[li] * rhs.f32[ki]
				case classF64:
					out.f64[outPos] += lhs.f64[li] * rhs.f64[ki]
				case classInt:
					out.i[outPos] += lhs.i[li] * rhs.i[ki]
				case classUint:
					out.u[outPos] += lhs.u[li] * rhs.u[ki]
				case classComplex:
					out.c[outPos] += lhs.c[li] * rhs.c[ki]
				default:
					out.b[outPos] = out.b[outPos] || (lhs.b[li] && rhs.b[ki])
				}
			}
		})
		outPos++
	})
	if err != nil {
		return nil, err
	}
	out.normalize()
	return []*array{out}, nil
}
