package stablehlo

// Custom (pretty) assembly forms of the common ops.

// parsePrettyOp parses the custom assembly of an op after its name.
func (p *parser) parsePrettyOp(op *operation, nres int) {
	switch op.Name {
	case "stablehlo.constant":
		if p.isPunct("{") {
			op.attrs = p.parseDict()
		}
		v := p.parseAttrValueNoType()
		p.expectPunct(":")
		t := p.parseType()
		v.Type = t
		op.attrs["value"] = v
		op.resultTypes = []TensorType{t}
		return
	case "stablehlo.reduce":
		p.parsePrettyReduce(op)
		return
	case "stablehlo.while":
		p.parsePrettyWhile(op)
		return
	case "sdy.manual_computation":
		p.parseManualComputation(op)
		return
	case "stablehlo.convolution":
		p.parsePrettyConvolution(op)
		return
	case "stablehlo.composite":
		// stablehlo.composite "name" %a, %b {decomposition = @f, ...} : sig
		op.attrs["name"] = &Attr{Kind: AttrString, Str: p.expectKind(tokString, "a composite name").text}
		for p.tok.kind == tokValue {
			op.operands = append(op.operands, p.parseOperand())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.parseAttrsInto(op)
		if d := op.attrs["decomposition"]; d != nil && d.Kind == AttrSymbol {
			op.callee = d.Str
		}
		p.expectPunct(":")
		ins, outs, _ := p.parseSignature()
		op.operandTyps, op.resultTypes = ins, outs
		return
	case "func.call", "stablehlo.custom_call":
		op.callee = p.expectKind(tokSymbol, "a callee").text
		op.operands = p.parseOperandList()
		if p.isPunct("{") {
			op.attrs = p.parseDict()
		}
		p.expectPunct(":")
		ins, outs, _ := p.parseSignature()
		op.operandTyps, op.resultTypes = ins, outs
		return
	}
	p.parsePrettyOperandsAndAttrs(op)
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	switch {
	case arrow:
		op.operandTyps, op.resultTypes = ins, outs
	case nres > 1 && nres == len(ins):
		op.operandTyps, op.resultTypes = ins, ins
	case nres == 1 && len(ins) == 0:
		p.failAt(op.pos, "%s: missing result type", op.Name)
	case nres == 1:
		op.resultTypes = ins[len(ins)-1:]
		if len(ins) == 1 {
			for range op.operands {
				op.operandTyps = append(op.operandTyps, ins[0])
			}
		} else {
			op.operandTyps = ins
		}
	case nres == 0:
	default:
		p.failAt(op.pos, "%s: cannot infer %d result types", op.Name, nres)
	}
}

// parsePrettyOperandsAndAttrs handles the common custom forms:
// "%a, %b", "GT, %a, %b, FLOAT", "%x, dims = [1, 0]", "%x [0:2, 1:3]",
// "contracting_dims = [1] x [0]", followed by an optional {attr-dict}.
func (p *parser) parsePrettyOperandsAndAttrs(op *operation) {
	for !p.isPunct(":") {
		switch {
		case p.tok.kind == tokValue:
			op.operands = append(op.operands, p.parseOperand())
		case p.tok.kind == tokIdent && p.peek().text == "=":
			key := p.tok.text
			p.advance()
			p.advance()
			v := p.parseAttrValueNoType()
			if p.isIdent("x") {
				p.advance()
				v = &Attr{Kind: AttrList, List: []*Attr{v, p.parseAttrValueNoType()}}
			}
			op.attrs[key] = v
		case p.tok.kind == tokIdent:
			pos := op.attrs["_positional"]
			if pos == nil {
				pos = &Attr{Kind: AttrList}
				op.attrs["_positional"] = pos
			}
			pos.List = append(pos.List, &Attr{Kind: AttrEnum, Str: p.tok.text})
			p.advance()
		case p.isPunct("["):
			p.parseSliceSpec(op)
		case p.isPunct("<"):
			raw := p.rawBalanced()
			if op.Name == "sdy.sharding_constraint" || op.Name == "sdy.reshard" {
				// %y = sdy.sharding_constraint %x <@mesh, [...]>: the
				// attribute bytecode names "sharding".
				if a, err := parseAttrText("#sdy.sharding" + raw); err == nil {
					op.attrs["sharding"] = a
					break
				}
			}
			op.attrs["_angle"] = &Attr{Kind: AttrString, Str: raw}
		case p.isPunct("{"):
			for k, v := range p.parseDict() {
				op.attrs[k] = v
			}
		case p.isPunct("(") || p.isPunct(")"): // chlo.top_k(%x, k = 2)
			p.advance()
		default:
			p.fail("unexpected %s in %s", describe(p.tok), op.Name)
		}
		p.acceptPunct(",")
	}
}

// parseSliceSpec parses "[start:limit(:stride)?, ...]".
func (p *parser) parseSliceSpec(op *operation) {
	p.expectPunct("[")
	var start, limit, stride []int64
	for !p.isPunct("]") {
		start = append(start, p.expectInt())
		p.expectPunct(":")
		limit = append(limit, p.expectInt())
		s := int64(1)
		if p.acceptPunct(":") {
			s = p.expectInt()
		}
		stride = append(stride, s)
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("]")
	op.attrs["start_indices"] = intListAttr(start)
	op.attrs["limit_indices"] = intListAttr(limit)
	op.attrs["strides"] = intListAttr(stride)
}

func intListAttr(v []int64) *Attr {
	a := &Attr{Kind: AttrList}
	for _, x := range v {
		a.List = append(a.List, &Attr{Kind: AttrInt, Int: x})
	}
	return a
}
