package stablehlo

type resultName struct {
	name  string
	count int
	multi bool // written as %x:N, so uses are %x#i
	pos   int
}

// parseOp parses one operation into r. It returns true when the op was the
// block's terminator (return / stablehlo.return), which ends the block.
func (p *parser) parseOp(r *Region) bool {
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
	op := &Op{pos: p.tok.pos, attrs: map[string]*Attr{}}
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
func (p *parser) parseTerminatorOperands(r *Region) {
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

func (p *parser) parseGenericTerminator(r *Region, names []resultName) {
	if len(names) > 0 {
		p.fail("terminator has no results")
	}
	p.expectPunct("(")
	for !p.isPunct(")") {
		r.rets = append(r.rets, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	if p.isPunct("{") {
		p.parseDict()
	}
	p.expectPunct(":")
	p.parseSignature()
	p.skipLoc()
}

// parseGenericOp parses the generic form after the quoted name:
// (operands) <{properties}> (regions) {attrs} : (types) -> types
func (p *parser) parseGenericOp(op *Op, nres int) {
	p.expectPunct("(")
	for !p.isPunct(")") {
		op.operands = append(op.operands, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
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
	if p.isPunct("{") {
		for k, v := range p.parseDict() {
			op.attrs[k] = v
		}
	}
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	if !arrow {
		p.fail("expected \"->\" in the generic op signature")
	}
	op.operandTyps, op.resultTypes = ins, outs
	if len(ins) != len(op.operands) {
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
func (p *parser) parseRegion() *Region {
	r := &Region{}
	p.pushScope()
	defer p.popScope()
	p.expectPunct("{")
	if p.tok.kind == tokCaret {
		p.advance()
		if p.acceptPunct("(") {
			for !p.isPunct(")") {
				t := p.expectKind(tokValue, "a block argument")
				p.expectPunct(":")
				typ := p.parseType()
				p.skipLoc()
				r.args = append(r.args, p.define(t.text, t.pos))
				r.argTypes = append(r.argTypes, typ)
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct(")")
		}
		p.expectPunct(":")
	}
	for !p.isPunct("}") {
		if p.tok.kind == tokEOF {
			p.fail("unexpected end of input in region")
		}
		if p.parseOp(r) {
			break
		}
	}
	p.expectPunct("}")
	return r
}

// parsePrettyOp parses the custom assembly of an op after its name.
func (p *parser) parsePrettyOp(op *Op, nres int) {
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
		if p.isPunct("{") {
			for k, v := range p.parseDict() {
				op.attrs[k] = v
			}
		}
		if d := op.attrs["decomposition"]; d != nil && d.Kind == AttrSymbol {
			op.callee = d.Str
		}
		p.expectPunct(":")
		ins, outs, _ := p.parseSignature()
		op.operandTyps, op.resultTypes = ins, outs
		return
	case "func.call", "stablehlo.custom_call":
		op.callee = p.expectKind(tokSymbol, "a callee").text
		p.expectPunct("(")
		for !p.isPunct(")") {
			op.operands = append(op.operands, p.parseOperand())
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(")")
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
func (p *parser) parsePrettyOperandsAndAttrs(op *Op) {
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
			op.attrs["_angle"] = &Attr{Kind: AttrString, Str: p.rawBalanced()}
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
func (p *parser) parseSliceSpec(op *Op) {
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

// parsePrettyReduce parses
//
//	stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : sig
//	stablehlo.reduce(%x init: %c), (%y init: %d) across dimensions = [1] : sig
//	  reducer(%a: T, %b: T) (%c: U, %d: U) { ... }
func (p *parser) parsePrettyReduce(op *Op) {
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
	if p.isPunct("{") {
		for k, v := range p.parseDict() {
			op.attrs[k] = v
		}
	}
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	if !arrow {
		p.fail("expected \"->\" in reduce signature")
	}
	op.operandTyps, op.resultTypes = ins, outs
	n := len(inputs)
	if len(ins) != 2*n {
		p.failAt(op.pos, "reduce: %d operands but %d operand types", 2*n, len(ins))
	}
	if applies != "" {
		op.regions = []*Region{p.syntheticBinaryRegion(applies, appliesPos, ins[n:])}
		return
	}
	p.expectIdent("reducer")
	r := &Region{}
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
	op.regions = []*Region{r}
}

// syntheticBinaryRegion builds the region of "applies stablehlo.add":
// ^bb0(%a: T, %b: T): %r = stablehlo.add %a, %b; return %r.
func (p *parser) syntheticBinaryRegion(name string, pos int, initTypes []TensorType) *Region {
	if len(initTypes) != 1 {
		p.failAt(pos, "\"applies\" needs exactly one reduced operand")
	}
	t := TensorType{Elem: initTypes[0].Elem, raw: initTypes[0].raw}
	a, b, res := p.nslots, p.nslots+1, p.nslots+2
	p.nslots += 3
	inner := &Op{Name: name, operands: []int{a, b}, results: []int{res},
		operandTyps: []TensorType{t, t}, resultTypes: []TensorType{t}, attrs: map[string]*Attr{}, pos: pos}
	inner.line, inner.col = p.lines.position(pos)
	return &Region{args: []int{a, b}, argTypes: []TensorType{t, t}, ops: []*Op{inner}, rets: []int{res}}
}

// parsePrettyWhile parses
//
//	stablehlo.while(%iterArg = %init, ...) : T, ... cond { ... } do { ... }
func (p *parser) parsePrettyWhile(op *Op) {
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
	if p.isPunct("{") {
		for k, v := range p.parseDict() {
			op.attrs[k] = v
		}
	}
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
		r := &Region{args: args, argTypes: types}
		p.pushScope()
		p.parseBlockInto(r)
		p.popScope()
		op.regions = append(op.regions, r)
	}
}

// parseManualComputation parses Shardy's shard_map body:
//
//	sdy.manual_computation(%x) in_shardings=[...] out_shardings=[...]
//	    manual_axes={"x"} (%arg1: T) { ... sdy.return %y : T } : (U) -> V
//
// The interpreter cannot run it (it is per-device code), but the module
// must still parse so that UsesCollectives can report it.
func (p *parser) parseManualComputation(op *Op) {
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
	r := &Region{}
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
	op.regions = []*Region{r}
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
func (p *parser) parsePrettyConvolution(op *Op) {
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
