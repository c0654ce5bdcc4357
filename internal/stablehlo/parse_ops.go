package stablehlo

type resultName struct {
	name  string
	count int
	multi bool // written as %x:N, so uses are %x#i
	pos   int
}

// parseOp parses one operation into r. It returns true when the op was the
// block's terminator (return / stablehlo.return), which ends the block.
func (p *parser) parseOp(r *region) bool {
	p.enter()
	defer p.leave()
	var names []resultName
	if p.tok.kind == tokValue {
		for {
			t := p.expectKind(tokValue, "a result name")
			rn := resultName{name: t.text, count: 1, pos: t.pos}
			if p.acceptPunct(":") {
				rn.count = int(p.expectInt())
				rn.multi = true
				if rn.count < 0 {
					p.failAt(t.pos, "negative result count")
				}
			}
			names = append(names, rn)
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct("=")
	}
	nres := 0
	for _, n := range names {
		nres += n.count
	}
	op := &operation{pos: p.tok.pos, attrs: map[string]*Attr{}}
	op.line, op.col = p.lines.position(op.pos)
	switch p.tok.kind {
	case tokString:
		op.Name = p.tok.text
		p.advance()
		if isTerminator(op.Name) {
			p.parseGenericTerminator(r, names)
			return true
		}
		p.parseGenericOp(op, nres)
	case tokIdent:
		op.Name = canonicalOpName(p.tok.text)
		p.advance()
		if isTerminator(op.Name) {
			if len(names) > 0 {
				p.failAt(op.pos, "%s has no results", op.Name)
			}
			p.parseTerminatorOperands(r)
			return true
		}
		p.parsePrettyOp(op, nres)
	default:
		p.fail("expected an operation, found %s", describe(p.tok))
	}
	p.skipLoc()
	if len(op.resultTypes) != nres {
		p.failAt(op.pos, "%s: %d result names but %d result types", op.Name, nres, len(op.resultTypes))
	}
	for _, n := range names {
		for i := 0; i < n.count; i++ {
			name := n.name
			if n.multi {
				name = n.name + "#" + itoa(i)
			}
			op.results = append(op.results, p.define(name, n.pos))
		}
	}
	r.ops = append(r.ops, op)
	return false
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func isTerminator(name string) bool {
	switch name {
	case "func.return", "stablehlo.return", "return", "mhlo.return", "sdy.return":
		return true
	}
	return false
}

func canonicalOpName(name string) string {
	switch name {
	case "call":
		return "func.call"
	case "return":
		return "func.return"
	}
	return name
}

// parseTerminatorOperands parses "%a, %b : T, T" (or nothing).
func (p *parser) parseTerminatorOperands(r *region) {
	for p.tok.kind == tokValue {
		r.rets = append(r.rets, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	if p.acceptPunct(":") {
		p.parseTypeList()
	}
	p.skipLoc()
}

func (p *parser) parseGenericTerminator(r *region, names []resultName) {
	if len(names) > 0 {
		p.fail("terminator has no results")
	}
	r.rets = append(r.rets, p.parseOperandList()...)
	if p.isPunct("{") {
		p.parseDict()
	}
	p.expectPunct(":")
	p.parseSignature()
	p.skipLoc()
}

// parseGenericOp parses the generic form after the quoted name:
// (operands) <{properties}> (regions) {attrs} : (types) -> types
func (p *parser) parseGenericOp(op *operation, nres int) {
	op.operands = p.parseOperandList()
	if p.isPunct("[") {
		p.fail("successor blocks are not supported")
	}
	if p.acceptPunct("<") {
		for k, v := range p.parseDict() {
			op.attrs[k] = v
		}
		p.expectPunct(">")
	}
	if p.isPunct("(") {
		p.advance()
		for {
			op.regions = append(op.regions, p.parseRegion())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
	}
	p.parseAttrsInto(op)
	p.parseOpSignature(op, "the generic op")
	if ins := op.operandTyps; len(ins) != len(op.operands) {
		p.failAt(op.pos, "%s: %d operands but %d operand types", op.Name, len(op.operands), len(ins))
	}
	switch op.Name {
	case "func.call":
		if a := op.attrs["callee"]; a != nil && a.Kind == AttrSymbol {
			op.callee = a.Str
		}
	case "stablehlo.custom_call":
		if a := op.attrs["call_target_name"]; a != nil {
			op.callee = a.Str
		}
	case "stablehlo.composite":
		if a := op.attrs["decomposition"]; a != nil && a.Kind == AttrSymbol {
			op.callee = a.Str
		}
	}
}

// parseRegion parses "{ [^bb0(%a: T, ...):] ops }" in its own scope.
func (p *parser) parseRegion() *region {
	p.enter()
	defer p.leave()
	r := &region{}
	p.pushScope()
	defer p.popScope()
	p.expectPunct("{")
	if p.tok.kind == tokCaret {
		p.advance()
		if p.isPunct("(") {
			p.parseBlockArgs(r)
		}
		p.expectPunct(":")
	}
	p.parseOpsInto(r, "region")
	return r
}
