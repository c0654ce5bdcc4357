package stablehlo

// Pretty forms of sdy.manual_computation and stablehlo.convolution.

// parseManualComputation parses Shardy's shard_map body:
//
//	sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...]
//	    manual_axes={"x"} (%arg1: T) { ... sdy.return %y : T } : (U) -> V
//
// The interpreter cannot run it (it is per-device code), but the module
// must still parse so that UsesCollectives can report it.
func (p *parser) parseManualComputation(op *operation) {
	p.expectPunct("(")
	for !p.isPunct(")") {
		op.operands = append(op.operands, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	for p.tok.kind == tokIdent && p.peek().text == "=" {
		key := p.tok.text
		p.advance()
		p.advance()
		op.attrs[key] = p.parseAttrValueNoType()
	}
	r := &region{}
	p.pushScope()
	p.expectPunct("(")
	for !p.isPunct(")") {
		t := p.expectKind(tokValue, "a block argument")
		p.expectPunct(":")
		typ := p.parseType()
		r.args = append(r.args, p.define(t.text, t.pos))
		r.argTypes = append(r.argTypes, typ)
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	p.parseBlockInto(r)
	p.popScope()
	op.regions = []*region{r}
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	if !arrow {
		p.fail("expected \"->\" in sdy.manual_computation signature")
	}
	op.operandTyps, op.resultTypes = ins, outs
}

// parsePrettyConvolution parses
//
//	stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//	    window = {stride = [1, 1], pad = [[0, 0], [0, 0]], ...} {attrs} : (A, B) -> C
func (p *parser) parsePrettyConvolution(op *operation) {
	p.expectPunct("(")
	for !p.isPunct(")") {
		op.operands = append(op.operands, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	p.expectIdent("dim_numbers")
	p.expectPunct("=")
	start := p.tok.pos
	p.skipBalanced()
	p.expectIdent("x")
	p.skipBalanced()
	p.expectArrow()
	p.skipBalanced()
	op.attrs["dim_numbers"] = &Attr{Kind: AttrString, Raw: string(p.lex.src[start:p.lastEnd()])}
	if p.acceptPunct(",") {
		p.expectIdent("window")
		p.expectPunct("=")
		op.attrs["window"] = &Attr{Kind: AttrDict, Dict: p.parseDict()}
	}
	if p.isPunct("{") {
		for k, v := range p.parseDict() {
			op.attrs[k] = v
		}
	}
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	if !arrow {
		p.fail("expected \"->\" in convolution signature")
	}
	op.operandTyps, op.resultTypes = ins, outs
}
