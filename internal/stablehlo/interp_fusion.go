package stablehlo

// Elementwise fusion. A run of consecutive elementwise ops of one float or
// integer type (broadcasts of a scalar among them) becomes a single op that walks
// the data in cache-sized tiles and applies every step to a tile before
// moving on, so intermediate values that nothing else reads, a scalar's
// broadcast among them, never reach memory. Each step still rounds like
// the op it replaces, so results are identical to op-by-op evaluation.

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
}

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

// intFusable lists the integer ops a fusion runs: the wrapping arithmetic,
// bitwise and shift ops of counter-based random numbers (threefry), which
// are defined for every integer and cannot fail.
var intFusable = map[binaryKind]bool{
	binAdd: true, binSub: true, binMul: true, binAnd: true, binOr: true, binXor: true,
	binShl: true, binShrA: true, binShrL: true, binMax: true, binMin: true,
}

// fuseRegion rewrites runs of fusable ops in r (and nested regions).
func fuseRegion(r *region) {
	for _, op := range r.ops {
		for _, sub := range op.regions {
			fuseRegion(sub)
		}
	}
	// lastRead[s] is the index of the last op reading slot s (its nested
	// regions included); len(r.ops) when the terminator returns it.
	lastRead := map[int]int{}
	for k, op := range r.ops {
		uses := map[int]bool{}
		for _, s := range op.operands {
			uses[s] = true
		}
		for _, sub := range op.regions {
			collectUses(sub, uses)
		}
		for s := range uses {
			lastRead[s] = k
		}
	}
	for _, s := range r.rets {
		lastRead[s] = len(r.ops)
	}
	var out []*operation
	for i := 0; i < len(r.ops); {
		_, t, ok := fusableStep(r.ops[i])
		if !ok {
			out = append(out, r.ops[i])
			i++
			continue
		}
		// The run, with constants moved ahead of it: they read nothing, so
		// the order of evaluation is unchanged.
		group := []*operation{r.ops[i]}
		j := i + 1
		for ; j < len(r.ops); j++ {
			op := r.ops[j]
			if trimDialect(op.Name) == "constant" && len(op.operands) == 0 {
				out = append(out, op)
				continue
			}
			if _, t2, ok := fusableStep(op); !ok || !t2.Equal(t) {
				break
			}
			group = append(group, op)
		}
		i = j
		if len(group) < 2 {
			out = append(out, group...)
			continue
		}
		out = append(out, buildFused(group, j, lastRead, t))
	}
	r.ops = out
}

// buildFused turns group, the region's ops before index end, into one op
// whose results are the values read after the group.
func buildFused(group []*operation, end int, lastRead map[int]int, t TensorType) *operation {
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
		st, _, _ := fusableStep(op)
		st.a, st.output = ref(op.operands[0], op.operandTyps[0]), -1
		if !st.unary && !st.splat {
			st.b = ref(op.operands[1], op.operandTyps[1])
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
			round:  func(v []float32) { roundTo16(e, v) },
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
// step's result to the element type, as the op it replaces does (16-bit
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
