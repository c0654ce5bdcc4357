package stablehlo

import "math"

// reduce and reduce_window. A body that is one binary op on its two
// arguments (add, max, ...) runs as a typed loop; one of other elementwise
// ops on scalars as compiled steps (interp_reduce_scalar.go); any other body
// is interpreted per element on scalars.

// soleOp recognizes ^bb0(%a, %b): %r = op %a, %b; return %r, or its
// arguments swapped (%r = op %b, %a).
func soleOp(r *region) (op *operation, swapped, ok bool) {
	if len(r.args) != 2 || len(r.ops) != 1 || len(r.rets) != 1 {
		return nil, false, false
	}
	op = r.ops[0]
	if len(op.operands) != 2 || len(op.results) != 1 || op.results[0] != r.rets[0] {
		return nil, false, false
	}
	switch a, b := op.operands[0], op.operands[1]; {
	case a == r.args[0] && b == r.args[1]:
		return op, false, true
	case a == r.args[1] && b == r.args[0]:
		return op, true, true
	}
	return nil, false, false
}

// simpleBody recognizes a body that is one commutative binary op on its
// arguments.
func simpleBody(r *region) (binaryKind, bool) {
	op, _, ok := soleOp(r)
	if !ok {
		return 0, false
	}
	kind, known := binaryOps[trimDialect(op.Name)]
	if !known {
		return 0, false
	}
	if len(r.argTypes) > 0 && r.argTypes[0].Elem.isComplex() && kind != binAdd && kind != binMul {
		return 0, false // not defined: the body's op reports it
	}
	switch kind {
	case binAdd, binMul, binMax, binMin, binAnd, binOr, binXor:
		return kind, true
	}
	return 0, false
}

func trimDialect(name string) string {
	if len(name) > 10 && name[:10] == "stablehlo." {
		return name[10:]
	}
	return name
}

// combine sets acc[ai] = kind(acc[ai], x[xi]) for one element.
func combine(kind binaryKind, acc *array, ai int, x *array, xi int) {
	switch acc.t.Elem.class() {
	case classF32:
		acc.f32[ai] = combineFloat(kind, acc.f32[ai], x.f32[xi])
	case classF64:
		acc.f64[ai] = combineFloat(kind, acc.f64[ai], x.f64[xi])
	case classInt:
		acc.i[ai] = combineInt(kind, acc.i[ai], x.i[xi])
	case classUint:
		acc.u[ai] = combineInt(kind, acc.u[ai], x.u[xi])
	case classComplex:
		acc.c[ai] = combineComplex(kind, acc.c[ai], x.c[xi])
	default:
		a, b := acc.b[ai], x.b[xi]
		switch kind {
		case binAnd, binMin, binMul:
			acc.b[ai] = a && b
		case binOr, binMax, binAdd:
			acc.b[ai] = a || b
		case binXor:
			acc.b[ai] = a != b
		}
	}
}

func combineFloat[T float32 | float64](kind binaryKind, a, b T) T {
	switch kind {
	case binMax:
		return floatMax(a, b)
	case binMin:
		return floatMin(a, b)
	}
	return combineArith(kind, a, b)
}

func combineInt[T int64 | uint64](kind binaryKind, a, b T) T {
	switch kind {
	case binAnd:
		return a & b
	case binOr:
		return a | b
	case binXor:
		return a ^ b
	case binMax:
		return max(a, b)
	case binMin:
		return min(a, b)
	}
	return combineArith(kind, a, b)
}

// combineArith is the sum or, for binMul, the product of a and b.
func combineArith[T int64 | uint64 | float32 | float64](kind binaryKind, a, b T) T {
	if kind == binMul {
		return a * b
	}
	return a + b
}

// scalarAt copies element k of a into a new rank-0 array.
func scalarAt(a *array, k int) *array {
	out := newArray(scalarType(a.t))
	copyElem(out, 0, a, k)
	return out
}

// reducer folds values into accumulators, through the fast path or the body.
type reducer struct {
	ev     *evaluator
	body   *region
	kind   binaryKind
	simple bool
	scalar *scalarBody // nil: interpreted
	args   []*array
	// unroundedNarrow leaves narrow float accumulators unrounded between
	// simple steps; the caller rounds them once at the end.
	unroundedNarrow bool
}

func newReducer(ev *evaluator, body *region, n int) (*reducer, error) {
	if len(body.args) != 2*n || len(body.rets) != n {
		return nil, invalidf("reduction body takes %d arguments and returns %d values, want %d and %d",
			len(body.args), len(body.rets), 2*n, n)
	}
	kind, simple := simpleBody(body)
	r := &reducer{ev: ev, body: body, kind: kind, simple: simple && n == 1, args: make([]*array, 2*n)}
	if !r.simple && compileScalarBodies {
		r.scalar, _ = compileScalarBody(body, n)
	}
	return r, nil
}

// foldRun folds xs[xi+e] into acc[ai+e] for e < n, as n calls of fold do;
// a simple body over real or integer elements runs as one typed loop
// (combineRun).
func (r *reducer) foldRun(acc []*array, ai int, xs []*array, xi, n int) error {
	if r.simple && !r.unroundedNarrow && combineRun(r.kind, acc[0], ai, xs[0], xi, n) {
		return nil
	}
	for e := range n {
		if err := r.fold(acc, ai+e, xs, xi+e); err != nil {
			return err
		}
	}
	return nil
}

// fold sets acc[i][ai] = body(acc[i][ai]..., x[i][xi]...).
func (r *reducer) fold(acc []*array, ai int, xs []*array, xi int) error {
	if r.simple {
		combine(r.kind, acc[0], ai, xs[0], xi)
		if e := acc[0].t.Elem; e.isNarrowFloat() && !r.unroundedNarrow {
			acc[0].f32[ai] = roundNarrowScalar(e, acc[0].f32[ai])
		} else if e.isInt() && e.bits() < 64 {
			if acc[0].i != nil {
				acc[0].i[ai] = signExtend(e, acc[0].i[ai])
			} else {
				acc[0].u[ai] = maskUint(e, acc[0].u[ai])
			}
		}
		return nil
	}
	if r.scalar != nil {
		return r.scalar.fold(acc, ai, xs, xi)
	}
	n := len(acc)
	for i := 0; i < n; i++ {
		r.args[i] = scalarAt(acc[i], ai)
		r.args[n+i] = scalarAt(xs[i], xi)
	}
	res, err := r.ev.runRegion(r.body, r.args)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if res[i].t.Elem != acc[i].t.Elem || res[i].size() != 1 {
			return invalidf("reduction body returned %s, want a %s scalar", res[i].t, acc[i].t.Elem)
		}
		copyElem(acc[i], ai, res[i], 0)
	}
	return nil
}

func evalReduce(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	n := len(in) / 2
	if n == 0 || len(in) != 2*n || len(op.regions) != 1 || len(op.resultTypes) != n {
		return nil, invalidf("reduce needs N inputs, N inits, one body and N results")
	}
	inputs, inits := in[:n], in[n:]
	dims, err := op.ints("dimensions")
	if err != nil {
		return nil, err
	}
	shape := inputs[0].t.Shape
	if err := checkAxes(dims, len(shape), "dimensions"); err != nil {
		return nil, err
	}
	var outShape []int64
	for d, s := range shape {
		if !containsInt(dims, int64(d)) {
			outShape = append(outShape, s)
		}
	}
	acc := make([]*array, n)
	for i := 0; i < n; i++ {
		if !shapesEqual(inputs[i].t.Shape, shape) || inits[i].size() != 1 {
			return nil, invalidf("reduce inputs must share a shape and inits must be scalars")
		}
		rt := op.resultTypes[i]
		if !shapesEqual(rt.Shape, outShape) || rt.Elem != inputs[i].t.Elem || inits[i].t.Elem != rt.Elem {
			return nil, invalidf("result %s does not match the reduced shape %v", rt, outShape)
		}
		acc[i] = broadcastScalar(inits[i], rt)
	}
	red, err := newReducer(ev, op.regions[0], n)
	if err != nil {
		return nil, err
	}
	// Step of the output index for each input dimension (0 when reduced).
	outStrides := strides(outShape)
	step := make([]int, len(shape))
	j := 0
	for d := range shape {
		if !containsInt(dims, int64(d)) {
			step[d] = outStrides[j]
			j++
		}
	}
	if red.simple && reduceSimple(red.kind, acc[0], inputs[0], shape, step) {
		return acc, nil
	}
	for k, o := range mapIndices(shape, step, 0) {
		if err := red.fold(acc, o, inputs, k); err != nil {
			return nil, err
		}
	}
	return acc, nil
}

// reduceSimple folds x into acc (acc[o] op= x[k] where input element k,
// at its multi-index of shape, maps to output o = sum(idx[d]*step[d])) with
// typed loops over runs of the input, and reports whether it could. Each
// output takes its inputs in order. Narrow floats reduce in float32 and
// round once per output, as XLA computes them (rounding after every step
// loses the small terms of a long bf16 sum: 65,536 × 0.01 came to 4).
func reduceSimple(kind binaryKind, acc, x *array, shape []int64, step []int) bool {
	switch e := acc.t.Elem; {
	case (e == F32 || e.isNarrowFloat()) && kind == binAdd:
		sumWide(acc.f32, x.f32, shape, step)
		roundNarrow(e, acc.f32)
	case (e == F32 || e.isNarrowFloat()) && (kind == binMax || kind == binMin):
		extremeRuns(kind == binMax, acc.f32, x.f32, shape, step)
	case e.isNarrowFloat():
		reduceLoop(kind, acc.f32, x.f32, shape, step, floatMax[float32], floatMin[float32])
		roundNarrow(e, acc.f32)
	case e == F32:
		reduceLoop(kind, acc.f32, x.f32, shape, step, floatMax[float32], floatMin[float32])
	case e == F64 && kind == binAdd:
		sumCompensated(acc.f64, x.f64, shape, step)
	case e == F64 && (kind == binMax || kind == binMin):
		extremeRuns(kind == binMax, acc.f64, x.f64, shape, step)
	case e == F64:
		reduceLoop(kind, acc.f64, x.f64, shape, step, floatMax[float64], floatMin[float64])
	case e.isSigned() && kind != binXor && kind != binAnd && kind != binOr:
		reduceLoop(kind, acc.i, x.i, shape, step, intMax[int64], intMin[int64])
		acc.normalize() // wrapping add and multiply commute with truncation
	case e.isUnsigned() && kind != binXor && kind != binAnd && kind != binOr:
		reduceLoop(kind, acc.u, x.u, shape, step, intMax[uint64], intMin[uint64])
		acc.normalize()
	default:
		return false
	}
	return true
}

func reduceLoop[T float32 | float64 | int64 | uint64](kind binaryKind, acc, x []T, shape []int64, step []int, maxf, minf func(T, T) T) {
	op := func(a, b T) T { return a + b }
	switch kind {
	case binMul:
		op = func(a, b T) T { return a * b }
	case binMax:
		op = maxf
	case binMin:
		op = minf
	}
	forEachRun(shape, step, 0, func(k, o, n, s int) {
		xs := x[k : k+n]
		switch {
		case s == 0 && kind == binAdd:
			a := acc[o]
			for _, v := range xs {
				a += v
			}
			acc[o] = a
		case s == 0:
			a := acc[o]
			for _, v := range xs {
				a = op(a, v)
			}
			acc[o] = a
		case kind == binAdd:
			for _, v := range xs {
				acc[o] += v
				o += s
			}
		default:
			for _, v := range xs {
				acc[o] = op(acc[o], v)
				o += s
			}
		}
	})
}

// sumWide adds in float64 and rounds once per output: a sequential float32
// sum over n elements drifts by about n ulps (1e-3 for n = 1024 where XLA's
// blocked sums stay near 1e-5), which a user comparing losses against XLA
// sees; float64's own drift stays below one float32 rounding for n < 2^29.
func sumWide(acc, x []float32, shape []int64, step []int) {
	wide := make([]float64, len(acc))
	for o, v := range acc {
		wide[o] = float64(v)
	}
	forEachRun(shape, step, 0, func(k, o, n, s int) {
		if s == 0 { // one output: keep its sum in a register
			sum := wide[o]
			for _, v := range x[k : k+n] {
				sum += float64(v)
			}
			wide[o] = sum
			return
		}
		for _, v := range x[k : k+n] {
			wide[o] += float64(v)
			o += s
		}
	})
	for o, v := range wide {
		acc[o] = float32(v)
	}
}

// extremeRuns is reduceLoop for the float maximum or minimum, comparing
// inline and calling floatMax or floatMin only where they decide something
// a comparison does not (a NaN, equal values such as +0 and -0): a call
// per element took four fifths of a row-wise max. Each output takes its
// inputs in order, so the results are floatMax's and floatMin's bits.
func extremeRuns[T float32 | float64](isMax bool, acc, x []T, shape []int64, step []int) {
	forEachRun(shape, step, 0, func(k, o, n, s int) {
		xs := x[k : k+n]
		switch {
		case isMax && s == 0:
			a := acc[o]
			for _, v := range xs {
				if v > a {
					a = v
				} else if !(v < a) {
					a = floatMax(a, v)
				}
			}
			acc[o] = a
		case isMax:
			for _, v := range xs {
				if a := acc[o]; v > a {
					acc[o] = v
				} else if !(v < a) {
					acc[o] = floatMax(a, v)
				}
				o += s
			}
		case s == 0:
			a := acc[o]
			for _, v := range xs {
				if v < a {
					a = v
				} else if !(v > a) {
					a = floatMin(a, v)
				}
			}
			acc[o] = a
		default:
			for _, v := range xs {
				if a := acc[o]; v < a {
					acc[o] = v
				} else if !(v > a) {
					acc[o] = floatMin(a, v)
				}
				o += s
			}
		}
	})
}

// sumCompensated adds with Neumaier's compensation: each output carries
// the low-order bits its additions lost and adds them back at the end, so
// a long float64 sum stays within an ulp or two of the exact one (a
// sequential sum of 1e5 × 0.1 was off by 1.9e-8, some 10,000 ulps, where
// XLA's vectorized sum gives 10000 exactly).
func sumCompensated(acc, x []float64, shape []int64, step []int) {
	lost := make([]float64, len(acc))
	forEachRun(shape, step, 0, func(k, o, n, st int) {
		for _, v := range x[k : k+n] {
			s := acc[o]
			t := s + v
			switch {
			case math.IsInf(t, 0): // nothing to compensate, and s-t would be NaN
			case math.Abs(s) >= math.Abs(v):
				lost[o] += (s - t) + v
			default:
				lost[o] += (v - t) + s
			}
			acc[o] = t
			o += st
		}
	})
	for o, c := range lost {
		acc[o] += c
	}
}

func evalReduceWindow(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	n := len(in) / 2
	if n == 0 || len(in) != 2*n || len(op.regions) != 1 || len(op.resultTypes) != n {
		return nil, invalidf("reduce_window needs N inputs, N inits, one body and N results")
	}
	inputs, inits := in[:n], in[n:]
	shape := inputs[0].t.Shape
	rank := len(shape)
	w, err := readWindow(op, rank, true)
	if err != nil {
		return nil, err
	}
	rt := op.resultTypes[0]
	acc := make([]*array, n)
	for i := 0; i < n; i++ {
		if !shapesEqual(inputs[i].t.Shape, shape) || inits[i].size() != 1 || !shapesEqual(op.resultTypes[i].Shape, rt.Shape) {
			return nil, invalidf("reduce_window operand shapes do not match")
		}
		acc[i] = broadcastScalar(inits[i], op.resultTypes[i])
	}
	if len(rt.Shape) != rank {
		return nil, invalidf("result rank does not match")
	}
	red, err := newReducer(ev, op.regions[0], n)
	if err != nil {
		return nil, err
	}
	red.unroundedNarrow = true // as reduce: in float32, rounded once per output
	if d, reverse, ok := cumulativeAxis(shape, rt.Shape, w.size, w.strides, w.baseDil, w.winDil, w.pad); ok && red.simple {
		if cumulate(red.kind, acc[0], inputs[0], shape, d, reverse) {
			return acc, nil
		}
	}
	plan, err := newWindowPlan(shape, rt.Shape, w.size, w.strides, w.baseDil, w.winDil, w.pad)
	if err != nil {
		return nil, err
	}
	switch c := acc[0].t.Elem.class(); {
	case red.simple && c == classF32:
		err = plan.forEachRow(ev, func(o int, offs []int, n, shift int) error {
			foldRow(red.kind, acc[0].f32[o:o+n], inputs[0].f32, offs, shift)
			return nil
		})
	case red.simple && c == classF64:
		err = plan.forEachRow(ev, func(o int, offs []int, n, shift int) error {
			foldRow(red.kind, acc[0].f64[o:o+n], inputs[0].f64, offs, shift)
			return nil
		})
	default:
		err = plan.forEach(ev, func(o int, offs []int) error {
			for _, p := range offs {
				if err := red.fold(acc, o, inputs, p); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	if red.simple {
		roundNarrow(acc[0].t.Elem, acc[0].f32)
	}
	return acc, nil
}

func intMax[T int64 | uint64](a, b T) T { return max(a, b) }
func intMin[T int64 | uint64](a, b T) T { return min(a, b) }

// cumulativeAxis recognizes the reduce_window JAX lowers cumsum, cumprod,
// cummax and cummin to: along one axis d a window as long as the axis, padded
// by its length less one before it (after it when reverse), every other
// window 1, no strides, dilations or other padding. Run as windows, it costs
// n² steps along the axis (115 s for a cumsum of 100,000); as a running
// reduction, n.
func cumulativeAxis(shape, result, window, wstrides, bdil, wdil, pad []int64) (d int, reverse, ok bool) {
	if !shapesEqual(shape, result) {
		return 0, false, false
	}
	d = -1
	for i, n := range shape {
		if wstrides[i] != 1 || bdil[i] != 1 || wdil[i] != 1 {
			return 0, false, false
		}
		switch {
		case window[i] == 1 && pad[2*i] == 0 && pad[2*i+1] == 0:
		case d < 0 && n > 1 && window[i] == n && pad[2*i] == n-1 && pad[2*i+1] == 0:
			d = i
		case d < 0 && n > 1 && window[i] == n && pad[2*i] == 0 && pad[2*i+1] == n-1:
			d, reverse = i, true
		default:
			return 0, false, false
		}
	}
	return d, reverse, d >= 0
}

// cumulate sets acc (holding the init value everywhere) to the running
// reduction of x along axis d, from the end when reverse, and reports
// whether it could. The running value of a float32 sum is a float64 and
// Narrow floats run in float32, each output rounded once, as reduce does.
func cumulate(kind binaryKind, acc, x *array, shape []int64, d int, reverse bool) bool {
	outer, inner := 1, 1
	for i, n := range shape {
		switch {
		case i < d:
			outer *= int(n)
		case i > d:
			inner *= int(n)
		}
	}
	lines := scanShape{outer: outer, n: int(shape[d]), inner: inner, reverse: reverse}
	switch e := acc.t.Elem; {
	case e.class() == classF32 && kind == binAdd:
		scanLines(lines, acc.f32, x.f32, func(v float32) float64 { return float64(v) },
			func(w float64, v float32) float64 { return w + float64(v) }, func(w float64) float32 { return float32(w) })
		roundNarrow(e, acc.f32)
	case e.class() == classF32:
		scanLines(lines, acc.f32, x.f32, same[float32], func(w, v float32) float32 { return combineFloat(kind, w, v) }, same[float32])
		roundNarrow(e, acc.f32)
	case e.class() == classF64:
		scanLines(lines, acc.f64, x.f64, same[float64], func(w, v float64) float64 { return combineFloat(kind, w, v) }, same[float64])
	case e.class() == classInt:
		scanLines(lines, acc.i, x.i, same[int64], func(w, v int64) int64 { return combineInt(kind, w, v) }, same[int64])
		acc.normalize()
	case e.class() == classUint:
		scanLines(lines, acc.u, x.u, same[uint64], func(w, v uint64) uint64 { return combineInt(kind, w, v) }, same[uint64])
		acc.normalize()
	default:
		return false
	}
	return true
}

// scanShape is an array seen as outer × n × inner, scanned along n.
type scanShape struct {
	outer, n, inner int
	reverse         bool
}

func same[T any](v T) T { return v }

// scanLines runs step along every line of s: acc holds the start value of
// each line and receives the running values, kept in W between steps.
func scanLines[T, W any](s scanShape, acc, x []T, widen func(T) W, step func(W, T) W, narrow func(W) T) {
	for o := 0; o < s.outer; o++ {
		for in := 0; in < s.inner; in++ {
			base := o*s.n*s.inner + in
			w := widen(acc[base])
			for t := 0; t < s.n; t++ {
				k := base + t*s.inner
				if s.reverse {
					k = base + (s.n-1-t)*s.inner
				}
				w = step(w, x[k])
				acc[k] = narrow(w)
			}
		}
	}
}
