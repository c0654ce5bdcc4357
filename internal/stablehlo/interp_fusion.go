package stablehlo

import "cmp"

// Elementwise fusion. A run of consecutive elementwise ops of one float or
// integer type (broadcasts of a scalar among them, and jnp.where's compares
// and is_finite, their and/or/xor/not, the selects by them and their
// conversions to numbers, with masks held as 0 or 1 in that type) becomes a single op that walks the data in cache-sized
// tiles and applies every step to a tile before moving on, so intermediate
// values that nothing else reads, a scalar's broadcast among them, never
// reach memory. Each step still rounds like the op it replaces, so results
// are identical to op-by-op evaluation.

const (
	fusionMinElements = 1 << 12
	fusionTile        = 1 << 10
)

// fusedRef names a step operand: an input of the fused op (ext >= 0) or
// the value computed by an earlier step (ext < 0, val = step index).
type fusedRef struct{ ext, val int }

type fusedStep struct {
	splat  bool // a broadcast of the scalar a
	exact  bool // the result needs no rounding or wrapping: its operands had none to do
	unary  bool
	bin    binaryKind
	un     unaryKind
	a, b   fusedRef
	output int // index into the fused op's results, or -1 for a temporary

	// A step of an i1 mask, held as 0 or 1 in the fusion's storage type,
	// or a select by one (a the mask, b and c the choices).
	mask  maskKind
	test  func(int) bool // a compare's direction
	total bool           // a compare's TOTALORDER
	c     fusedRef
}

type maskKind int

const (
	noMask maskKind = iota
	maskCompare
	maskSelect
	maskAnd
	maskOr
	maskXor
	maskNot
	maskIsFinite // is_finite of a t value
	maskToValue  // convert of a mask to t: 0 or 1
)

type fusedProgram struct {
	steps []fusedStep
	typ   TensorType
	ops   []*operation // the ops the steps replace, one a step
}

// fusableStep returns the step op computes and its result type, or false
// when op cannot join a fusion: a float elementwise op over operands of its
// result's type, or a broadcast of a scalar (a splat, which a fusion fills
// tile by tile instead of materializing).
func fusableStep(op *operation) (fusedStep, TensorType, bool) {
	if len(op.resultTypes) != 1 || len(op.operandTyps) != len(op.operands) {
		return fusedStep{}, TensorType{}, false
	}
	t := op.resultTypes[0]
	if !(t.Elem.isFloat() || t.Elem.isInt()) || !t.supported() || t.NumElements() < fusionMinElements {
		return fusedStep{}, TensorType{}, false
	}
	name := trimDialect(op.Name)
	if name == "broadcast_in_dim" {
		ot := op.operandTyps[0]
		return fusedStep{splat: true, exact: true}, t, len(op.operands) == 1 && ot.Elem == t.Elem && ot.NumElements() == 1
	}
	for _, ot := range op.operandTyps {
		if !ot.Equal(t) {
			return fusedStep{}, TensorType{}, false
		}
	}
	if t.Elem.isInt() {
		if k, found := binaryOps[name]; found && intFusable[k] {
			exact := k == binAnd || k == binOr || k == binXor || k == binMax || k == binMin
			return fusedStep{bin: k, exact: exact}, t, len(op.operands) == 2
		}
		if k, found := unaryOps[name]; found && (k == unNot || k == unNeg) {
			return fusedStep{unary: true, un: k}, t, len(op.operands) == 1
		}
		return fusedStep{}, TensorType{}, false
	}
	if k, found := binaryOps[name]; found && binaryDefinedForFloat(k) && k != binNextAfter {
		return fusedStep{bin: k}, t, len(op.operands) == 2
	}
	if k, found := unaryOps[name]; found && floatUnaryFunc(k) != nil {
		return fusedStep{unary: true, un: k}, t, len(op.operands) == 1
	}
	return fusedStep{}, TensorType{}, false
}

// maskStep returns the step op computes in a fusion of storage type t whose
// masks (i1 values its steps compute) are the slots in masks, or false: a
// compare of two t values, is_finite of a float, a select between two t
// values by a mask, and, or, xor, not of masks, or a mask converted to t.
// The fusion holds a mask as 0 or 1 in t.
func maskStep(op *operation, t TensorType, masks map[int]bool) (fusedStep, bool) {
	types := operandTypes(op)
	if len(op.resultTypes) != 1 || len(types) != len(op.operands) || len(op.regions) > 0 {
		return fusedStep{}, false
	}
	maskType := TensorType{Elem: Bool, Shape: t.Shape}
	isMask := func(i int) bool { return masks[op.operands[i]] && types[i].Equal(maskType) }
	isT := func(i int) bool { return types[i].Equal(t) }
	rt := op.resultTypes[0]
	switch name := trimDialect(op.Name); {
	case name == "compare" && len(op.operands) == 2 && isT(0) && isT(1) && rt.Equal(maskType):
		dir, typ := comparisonArgs(op)
		test, err := comparisonTest(dir)
		return fusedStep{mask: maskCompare, test: test, total: typ == "TOTALORDER", exact: true}, err == nil
	case name == "select" && len(op.operands) == 3 && isMask(0) && isT(1) && isT(2) && rt.Equal(t):
		return fusedStep{mask: maskSelect, exact: true}, true
	case rt.Equal(maskType) && len(op.operands) == 2 && isMask(0) && isMask(1):
		k := maskLogicKinds[name]
		return fusedStep{mask: k, exact: true}, k != noMask
	case name == "not" && rt.Equal(maskType) && len(op.operands) == 1 && isMask(0):
		return fusedStep{mask: maskNot, exact: true}, true
	case name == "is_finite" && t.Elem.isFloat() && rt.Equal(maskType) && len(op.operands) == 1 && isT(0):
		return fusedStep{mask: maskIsFinite, exact: true}, true
	case name == "convert" && rt.Equal(t) && len(op.operands) == 1 && isMask(0):
		return fusedStep{mask: maskToValue, exact: true}, true
	}
	return fusedStep{}, false
}

var maskLogicKinds = map[string]maskKind{"and": maskAnd, "or": maskOr, "xor": maskXor}

// operandTypes returns op's operand types, one an operand: select's short
// form (select %p, %x, %y : i1-type, type) names its choices' type once.
func operandTypes(op *operation) []TensorType {
	if trimDialect(op.Name) == "select" && len(op.operands) == 3 && len(op.operandTyps) == 2 {
		return []TensorType{op.operandTyps[0], op.operandTyps[1], op.operandTyps[1]}
	}
	return op.operandTyps
}

// intFusable lists the integer ops a fusion runs: the wrapping arithmetic,
// bitwise and shift ops of counter-based random numbers (threefry), and
// division and remainder (x/0 is -1, x%0 is x), which are defined for every
// integer and cannot fail.
var intFusable = map[binaryKind]bool{
	binAdd: true, binSub: true, binMul: true, binDiv: true, binRem: true, binAnd: true, binOr: true, binXor: true,
	binShl: true, binShrA: true, binShrL: true, binMax: true, binMin: true,
}

// fuseRegion rewrites runs of fusable ops in r (and nested regions).
func fuseRegion(r *region) {
	for _, op := range r.ops {
		for _, sub := range op.regions {
			fuseRegion(sub)
		}
	}
	lastRead := lastReads(r)
	var out []*operation
	for i := 0; i < len(r.ops); {
		group, steps, at, t := fusableRun(r.ops, i, lastRead)
		if len(group) < 2 {
			out = append(out, r.ops[i])
			i++
			continue
		}
		// Constants among the run's ops go ahead of it: they read nothing,
		// so the order of evaluation is unchanged.
		end := at[len(at)-1] + 1
		for _, op := range r.ops[i:end] {
			if isConstantOp(op) {
				out = append(out, op)
			}
		}
		out = append(out, buildFused(group, steps, end, lastRead, t))
		i = end
	}
	r.ops = out
}

// fusableRun returns the run of fusable steps of one storage type t that
// starts at ops[i], constants between them left out, with the step each op
// computes and the ops' indices in ops. A mask must be read only inside the
// run (a fusion's results are of type t), so the run ends before any step
// whose mask is read after it.
func fusableRun(ops []*operation, i int, lastRead map[int]int) (group []*operation, steps []fusedStep, at []int, t TensorType) {
	first, t, ok := fusableStep(ops[i])
	if !ok {
		return nil, nil, nil, t
	}
	group, steps, at = []*operation{ops[i]}, []fusedStep{first}, []int{i}
	masks := map[int]bool{}
	for j := i + 1; j < len(ops); j++ {
		op := ops[j]
		if isConstantOp(op) {
			continue
		}
		st, t2, ok := fusableStep(op)
		if !ok || !t2.Equal(t) {
			if st, ok = maskStep(op, t, masks); !ok {
				break
			}
			if st.mask != maskSelect && st.mask != maskToValue {
				masks[op.results[0]] = true
			}
		}
		group, steps, at = append(group, op), append(steps, st), append(at, j)
	}
	for len(group) > 0 {
		end, cut := at[len(at)-1]+1, len(group)
		for k, op := range group {
			if masks[op.results[0]] && lastRead[op.results[0]] >= end {
				cut = k
				break
			}
		}
		if cut == len(group) {
			break
		}
		group, steps, at = group[:cut], steps[:cut], at[:cut]
	}
	return group, steps, at, t
}

func isConstantOp(op *operation) bool {
	return trimDialect(op.Name) == "constant" && len(op.operands) == 0
}

// buildFused turns group, the region's ops before index end computing steps
// (fusableRun's), into one op
// whose results are the values read after the group.
func buildFused(group []*operation, steps []fusedStep, end int, lastRead map[int]int, t TensorType) *operation {
	first := group[0]
	fused := &operation{Name: "stablehlo.fused_elementwise", attrs: map[string]*Attr{}, pos: first.pos, line: first.line, col: first.col}
	prog := &fusedProgram{typ: t}
	stepOf := map[int]int{} // slot -> step computing it
	extOf := map[int]int{}  // slot -> fused operand index
	ref := func(s int, typ TensorType) fusedRef {
		if v, ok := stepOf[s]; ok {
			return fusedRef{ext: -1, val: v}
		}
		if e, ok := extOf[s]; ok {
			return fusedRef{ext: e}
		}
		extOf[s] = len(fused.operands)
		fused.operands = append(fused.operands, s)
		fused.operandTyps = append(fused.operandTyps, typ)
		return fusedRef{ext: extOf[s]}
	}
	for k, op := range group {
		st := steps[k]
		types := operandTypes(op)
		st.a, st.output = ref(op.operands[0], types[0]), -1
		if len(op.operands) > 1 && !st.unary && !st.splat {
			st.b = ref(op.operands[1], types[1])
		}
		if st.mask == maskSelect {
			st.c = ref(op.operands[2], types[2])
		}
		res := op.results[0]
		stepOf[res] = k
		if k, read := lastRead[res]; read && k >= end {
			st.output = len(fused.results)
			fused.results = append(fused.results, res)
			fused.resultTypes = append(fused.resultTypes, t)
		}
		prog.steps = append(prog.steps, st)
		prog.ops = append(prog.ops, op)
	}
	fused.fused = prog
	fused.eval = evalFused
	return fused
}

func evalFused(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	prog := op.fused
	outs := make([]*array, len(op.results))
	for i := range outs {
		outs[i] = newArray(prog.typ)
	}
	n := int(prog.typ.NumElements())
	e := prog.typ.Elem
	switch e.class() {
	case classF64:
		runFused(prog, n, in, outs, func(a *array) []float64 { return a.f64 }, fusedKernels[float64]{
			unary:  unaryFloatSlice[float64],
			binary: func(k binaryKind, dst, a, b []float64) { binaryFloat(k, dst, a, b) },
			round:  func([]float64) {},
		})
	case classF32:
		runFused(prog, n, in, outs, func(a *array) []float32 { return a.f32 }, fusedKernels[float32]{
			unary:  unaryFloatSlice[float32],
			binary: func(k binaryKind, dst, a, b []float32) { binaryFloat(k, dst, a, b) },
			round:  func(v []float32) { roundNarrow(e, v) },
		})
	case classInt:
		shift := uint(64 - e.bits())
		runFused(prog, n, in, outs, func(a *array) []int64 { return a.i }, fusedKernels[int64]{
			unary:  func(k unaryKind, dst, a []int64) { unaryInteger(k, e.bits(), dst, a) },
			binary: func(k binaryKind, dst, a, b []int64) { binarySigned(k, e, dst, a, b) },
			round: func(v []int64) {
				for i, x := range v {
					v[i] = x << shift >> shift
				}
			},
		})
	default:
		mask := widthMask(e.bits())
		runFused(prog, n, in, outs, func(a *array) []uint64 { return a.u }, fusedKernels[uint64]{
			unary:  func(k unaryKind, dst, a []uint64) { unaryInteger(k, e.bits(), dst, a) },
			binary: func(k binaryKind, dst, a, b []uint64) { binaryUnsigned(k, e, dst, a, b) },
			round: func(v []uint64) {
				for i, x := range v {
					v[i] = x & mask
				}
			},
		})
	}
	return outs, nil
}

// fusedKernels are a fusion's steps for one storage type: round brings a
// step's result to the element type, as the op it replaces does (narrow
// floats rounded, narrow integers wrapped).
type fusedKernels[T any] struct {
	unary  func(unaryKind, []T, []T)
	binary func(binaryKind, []T, []T, []T)
	round  func([]T)
}

func runFused[T float32 | float64 | int64 | uint64](prog *fusedProgram, n int, in, outs []*array, data func(*array) []T, kern fusedKernels[T]) {
	parallelFor(n, func(lo, hi int) {
		temps := make([][]T, len(prog.steps))
		for k, st := range prog.steps {
			if st.output < 0 {
				temps[k] = make([]T, fusionTile)
			}
		}
		slice := func(r fusedRef, lo, hi int) []T {
			if r.ext >= 0 {
				return data(in[r.ext])[lo:hi]
			}
			if o := prog.steps[r.val].output; o >= 0 {
				return data(outs[o])[lo:hi]
			}
			return temps[r.val][:hi-lo]
		}
		for tlo := lo; tlo < hi; tlo += fusionTile {
			thi := min(tlo+fusionTile, hi)
			for k, st := range prog.steps {
				var dst []T
				if st.output >= 0 {
					dst = data(outs[st.output])[tlo:thi]
				} else {
					dst = temps[k][:thi-tlo]
				}
				switch {
				case st.splat:
					v := data(in[st.a.ext])[0]
					for i := range dst {
						dst[i] = v
					}
				case st.mask == maskCompare:
					compareTile(dst, slice(st.a, tlo, thi), slice(st.b, tlo, thi), st.test, st.total)
				case st.mask == maskSelect:
					selectTile(dst, slice(st.a, tlo, thi), slice(st.b, tlo, thi), slice(st.c, tlo, thi))
				case st.mask == maskNot:
					for i, x := range slice(st.a, tlo, thi) {
						dst[i] = maskOf[T](x == 0)
					}
				case st.mask == maskIsFinite:
					for i, x := range slice(st.a, tlo, thi) {
						dst[i] = maskOf[T](x-x == 0) // false for NaN and both infinities
					}
				case st.mask == maskToValue:
					copy(dst, slice(st.a, tlo, thi))
				case st.mask != noMask:
					maskLogic(st.mask, dst, slice(st.a, tlo, thi), slice(st.b, tlo, thi))
				case st.unary:
					kern.unary(st.un, dst, slice(st.a, tlo, thi))
				default:
					kern.binary(st.bin, dst, slice(st.a, tlo, thi), slice(st.b, tlo, thi))
				}
				if !st.exact {
					kern.round(dst)
				}
			}
		}
	})
}

// maskOf is a mask's value in a fusion's storage type.
func maskOf[T float32 | float64 | int64 | uint64](b bool) T {
	if b {
		return 1
	}
	return 0
}

// compareTile sets dst to the mask of test(a[i] <=> b[i]): IEEE (or total)
// order for floats, as evalCompare compares.
func compareTile[T float32 | float64 | int64 | uint64](dst, a, b []T, test func(int) bool, total bool) {
	b, dst = b[:len(a)], dst[:len(a)]
	var zero T
	switch any(zero).(type) {
	case float32, float64:
		for i := range a {
			dst[i] = maskOf[T](test(cmpFloat(float64(a[i]), float64(b[i]), total)))
		}
	default:
		for i := range a {
			dst[i] = maskOf[T](test(cmp.Compare(a[i], b[i])))
		}
	}
}

func selectTile[T float32 | float64 | int64 | uint64](dst, pred, x, y []T) {
	x, y, dst = x[:len(pred)], y[:len(pred)], dst[:len(pred)]
	for i, p := range pred {
		if p != 0 {
			dst[i] = x[i]
		} else {
			dst[i] = y[i]
		}
	}
}

func maskLogic[T float32 | float64 | int64 | uint64](kind maskKind, dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i := range a {
		x, y := a[i] != 0, b[i] != 0
		switch kind {
		case maskAnd:
			dst[i] = maskOf[T](x && y)
		case maskOr:
			dst[i] = maskOf[T](x || y)
		default:
			dst[i] = maskOf[T](x != y)
		}
	}
}

func unaryFloatSlice[T float32 | float64](kind unaryKind, dst, a []T) {
	dst = dst[:len(a)]
	switch kind {
	case unNeg:
		for i, x := range a {
			dst[i] = -x
		}
	default:
		f := floatUnaryFunc(kind)
		for i, x := range a {
			dst[i] = T(f(float64(x)))
		}
	}
}
