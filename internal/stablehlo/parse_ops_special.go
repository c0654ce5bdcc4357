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
	op.operands = p.parseOperandList()
	for p.tok.kind == tokIdent && p.peek().text == "=" {
		key := p.tok.text
		p.advance()
		p.advance()
		op.attrs[key] = p.parseAttrValueNoType()
	}
	r := &region{}
	p.pushScope()
	p.parseBlockArgs(r)
	p.parseBlockInto(r)
	p.popScope()
	op.regions = []*region{r}
	p.parseOpSignature(op, "sdy.manual_computation")
}

// parsePrettyConvolution parses
//
//	stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
//	    window = {stride = [1, 1], pad = [[0, 0], [0, 0]], ...} {attrs} : (A, B) -> C
func (p *parser) parsePrettyConvolution(op *operation) {
	op.operands = p.parseOperandList()
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
	p.parseAttrsInto(op)
	p.parseOpSignature(op, "convolution")
}
