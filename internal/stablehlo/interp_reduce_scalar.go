package stablehlo

// A reduction body of elementwise ops on scalars — JAX's argmax and argmin
// (compares, their and/or, a select of the value and one of the index),
// variadic sums and maxima — runs as a list of steps over rank-0
// registers that every element reuses. Interpreted, the body built a frame
// and an array for each op of each element: 2 µs an element, an argmax of
// 256×256 500 times XLA's time.

// compileScalarBodies is turned off by tests that compare with the
// interpreted body.
var compileScalarBodies = true

type scalarStepKind int

const (
	stepCompare scalarStepKind = iota
	stepSelect
	stepBinary
	stepNot
)

type scalarStep struct {
	kind  scalarStepKind
	dst   int    // register of the result
	in    [3]int // registers of the operands
	test  func(int) bool
	total bool // compare in total order
	bin   binaryKind
}

// scalarBody is a compiled body: registers 0..2n-1 take its arguments (n
// accumulators, then n values), constants have theirs, and rets name the
// registers it returns.
type scalarBody struct {
	regs  []*array
	steps []scalarStep
	rets  []int
}

// compileScalarBody compiles r, a body of n accumulators (its first n
// arguments) and n values of their types, or returns false when some op of
// it is not a plain elementwise op on scalars: the body is then
// interpreted.
func compileScalarBody(r *region, n int) (*scalarBody, bool) {
	if len(r.args) != 2*n || len(r.argTypes) != 2*n || len(r.rets) != n {
		return nil, false
	}
	b := &scalarBody{}
	reg := map[int]int{} // slot -> register
	add := func(slot int, t TensorType) int {
		reg[slot] = len(b.regs)
		b.regs = append(b.regs, newArray(t))
		return reg[slot]
	}
	for i, slot := range r.args {
		if t := r.argTypes[i]; len(t.Shape) != 0 || t.Elem != r.argTypes[i%n].Elem {
			return nil, false
		}
		add(slot, r.argTypes[i])
	}
	for _, op := range r.ops {
		if len(op.regions) != 0 || op.fused != nil || len(op.results) != 1 || len(op.resultTypes) != 1 || len(op.resultTypes[0].Shape) != 0 {
			return nil, false
		}
		if op.constant != nil {
			if op.constant.size() != 1 || op.constant.t.Elem != op.resultTypes[0].Elem {
				return nil, false
			}
			copyElem(b.regs[add(op.results[0], op.resultTypes[0])], 0, op.constant, 0)
			continue
		}
		st, ok := scalarStepOf(op, reg, b.regs)
		if !ok {
			return nil, false
		}
		st.dst = add(op.results[0], op.resultTypes[0])
		b.steps = append(b.steps, st)
	}
	for i, slot := range r.rets {
		k, ok := reg[slot]
		if !ok || b.regs[k].t.Elem != r.argTypes[i].Elem {
			return nil, false
		}
		b.rets = append(b.rets, k)
	}
	return b, true
}

// scalarStepOf returns the step op computes from the registers its operands
// are in, or false.
func scalarStepOf(op *operation, reg map[int]int, regs []*array) (scalarStep, bool) {
	var st scalarStep
	for i, slot := range op.operands {
		k, ok := reg[slot]
		if !ok || i >= len(st.in) {
			return st, false
		}
		st.in[i] = k
	}
	operand := func(i int) ElemType { return regs[st.in[i]].t.Elem }
	rt := op.resultTypes[0].Elem
	switch name := trimDialect(op.Name); {
	case name == "compare" && len(op.operands) == 2:
		dir, typ := comparisonArgs(op)
		test, err := comparisonTest(dir)
		if err != nil || rt != Bool || operand(0) != operand(1) || operand(0).isComplex() {
			return st, false
		}
		st.kind, st.test, st.total = stepCompare, test, typ == "TOTALORDER"
	case name == "select" && len(op.operands) == 3:
		if operand(0) != Bool || operand(1) != rt || operand(2) != rt {
			return st, false
		}
		st.kind = stepSelect
	case name == "not" && len(op.operands) == 1:
		if operand(0) != rt || !(rt == Bool || rt.isInt()) {
			return st, false
		}
		st.kind = stepNot
	default:
		kind, ok := binaryOps[name]
		if !ok || len(op.operands) != 2 || operand(0) != rt || operand(1) != rt {
			return st, false
		}
		st.kind, st.bin = stepBinary, kind
	}
	return st, true
}

// fold sets acc[i][ai] = body(acc[i][ai]..., x[i][xi]...).
func (b *scalarBody) fold(acc []*array, ai int, xs []*array, xi int) error {
	n := len(acc)
	for i := range n {
		if acc[i].t.Elem != b.regs[i].t.Elem || xs[i].t.Elem != b.regs[n+i].t.Elem {
			return invalidf("reduction body takes %s and %s, given %s and %s", b.regs[i].t, b.regs[n+i].t, acc[i].t.Elem, xs[i].t.Elem)
		}
		copyElem(b.regs[i], 0, acc[i], ai)
		copyElem(b.regs[n+i], 0, xs[i], xi)
	}
	for i := range b.steps {
		if err := b.run(&b.steps[i]); err != nil {
			return err
		}
	}
	for i, k := range b.rets {
		copyElem(acc[i], ai, b.regs[k], 0)
	}
	return nil
}

func (b *scalarBody) run(st *scalarStep) error {
	dst := b.regs[st.dst]
	x := b.regs[st.in[0]]
	switch st.kind {
	case stepCompare:
		dst.b[0] = st.test(compareAt(x, 0, b.regs[st.in[1]], 0, st.total))
	case stepSelect:
		if x.b[0] {
			copyElem(dst, 0, b.regs[st.in[1]], 0)
		} else {
			copyElem(dst, 0, b.regs[st.in[2]], 0)
		}
	case stepNot:
		switch dst.t.Elem.class() {
		case classBool:
			dst.b[0] = !x.b[0]
		case classInt:
			dst.i[0] = ^x.i[0] // stays sign-extended
		default:
			dst.u[0] = maskUint(dst.t.Elem, ^x.u[0])
		}
	default:
		return applyBinaryInto(st.bin, dst, x, b.regs[st.in[1]])
	}
	return nil
}
