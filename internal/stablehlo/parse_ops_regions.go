package stablehlo

// Pretty forms of ops with regions: reduce and while.

// parsePrettyReduce parses
//
//	stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : sig
//	stablehlo.reduce(%x init: %c), (%y init: %d) across dimensions = [1] : sig
//	  reducer(%a: T, %b: T) (%c: U, %d: U) { ... }
func (p *parser) parsePrettyReduce(op *operation) {
	var inputs, inits []int
	for {
		p.expectPunct("(")
		inputs = append(inputs, p.parseOperand())
		p.expectIdent("init")
		p.expectPunct(":")
		inits = append(inits, p.parseOperand())
		p.expectPunct(")")
		if !p.acceptPunct(",") {
			break
		}
	}
	op.operands = append(inputs, inits...)
	applies := ""
	appliesPos := 0
	if p.acceptIdent("applies") {
		appliesPos = p.tok.pos
		applies = p.expectKind(tokIdent, "an op name").text
	}
	p.expectIdent("across")
	p.expectIdent("dimensions")
	p.expectPunct("=")
	op.attrs["dimensions"] = p.parseAttrValueNoType()
	p.parseAttrsInto(op)
	p.parseOpSignature(op, "reduce")
	ins := op.operandTyps
	n := len(inputs)
	if len(ins) != 2*n {
		p.failAt(op.pos, "reduce: %d operands but %d operand types", 2*n, len(ins))
	}
	if applies != "" {
		op.regions = []*region{p.syntheticBinaryRegion(applies, appliesPos, ins[n:])}
		return
	}
	p.expectIdent("reducer")
	r := &region{}
	p.pushScope()
	defer p.popScope()
	lhs, rhs := make([]int, 0, n), make([]int, 0, n)
	var lt, rt []TensorType
	for g := 0; g < n; g++ {
		p.expectPunct("(")
		for k := 0; k < 2; k++ {
			t := p.expectKind(tokValue, "a reducer argument")
			p.expectPunct(":")
			typ := p.parseType()
			p.skipLoc()
			slot := p.define(t.text, t.pos)
			if k == 0 {
				lhs, lt = append(lhs, slot), append(lt, typ)
				p.expectPunct(",")
			} else {
				rhs, rt = append(rhs, slot), append(rt, typ)
			}
		}
		p.expectPunct(")")
	}
	r.args = append(lhs, rhs...)
	r.argTypes = append(lt, rt...)
	p.parseBlockInto(r)
	op.regions = []*region{r}
}

// syntheticBinaryRegion builds the region of "applies stablehlo.add":
// ^bb0(%a: T, %b: T): %r = stablehlo.add %a, %b; return %r.
func (p *parser) syntheticBinaryRegion(name string, pos int, initTypes []TensorType) *region {
	if len(initTypes) != 1 {
		p.failAt(pos, "\"applies\" needs exactly one reduced operand")
	}
	t := TensorType{Elem: initTypes[0].Elem, raw: initTypes[0].raw}
	a, b, res := p.nslots, p.nslots+1, p.nslots+2
	p.nslots += 3
	inner := &operation{Name: name, operands: []int{a, b}, results: []int{res},
		operandTyps: []TensorType{t, t}, resultTypes: []TensorType{t}, attrs: map[string]*Attr{}, pos: pos}
	inner.line, inner.col = p.lines.position(pos)
	return &region{args: []int{a, b}, argTypes: []TensorType{t, t}, ops: []*operation{inner}, rets: []int{res}}
}

// parsePrettyWhile parses
//
//	stablehlo.while(%iterArg = %init, ...) : T, ... cond { ... } do { ... }
func (p *parser) parsePrettyWhile(op *operation) {
	type iter struct {
		name string
		pos  int
	}
	var iters []iter
	p.expectPunct("(")
	for !p.isPunct(")") {
		t := p.expectKind(tokValue, "an iteration argument")
		p.expectPunct("=")
		op.operands = append(op.operands, p.parseOperand())
		iters = append(iters, iter{t.text, t.pos})
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	p.parseAttrsInto(op)
	var types []TensorType
	if p.acceptPunct(":") {
		types = p.parseTypeList()
	}
	if len(types) != len(iters) {
		p.failAt(op.pos, "while: %d iteration arguments but %d types", len(iters), len(types))
	}
	op.operandTyps, op.resultTypes = types, types
	p.pushScope()
	defer p.popScope()
	var args []int
	for _, it := range iters {
		args = append(args, p.define(it.name, it.pos))
	}
	for _, kw := range []string{"cond", "do"} {
		p.expectIdent(kw)
		r := &region{args: args, argTypes: types}
		p.pushScope()
		p.parseBlockInto(r)
		p.popScope()
		op.regions = append(op.regions, r)
	}
}
