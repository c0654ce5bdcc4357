package stablehlo

import "strconv"

// parseType parses a type: tensor<...>, a scalar builtin type (f32 means a
// rank-0 tensor here), or an opaque type kept by its spelling.
func (p *parser) parseType() TensorType {
	p.enter()
	defer p.leave()
	start := p.tok.pos
	switch {
	case p.isIdent("tensor") && p.peek().text == "<":
		return p.parseTensorType()
	case p.tok.kind == tokIdent:
		name := p.tok.text
		p.advance()
		if e, ok := ParseElemType(name); ok {
			return TensorType{Elem: e}
		}
		if p.isPunct("<") { // complex<f32>, tuple<...>, memref<...>
			p.skipBalanced()
		}
		spelling := string(p.lex.src[start:p.lastEnd()])
		if e, ok := ParseElemType(spelling); ok { // complex<f32>, complex<f64>
			return TensorType{Elem: e}
		}
		return TensorType{raw: spelling}
	case p.tok.kind == tokBang:
		p.advance()
		if p.isPunct("<") {
			p.skipBalanced()
		}
		return TensorType{raw: string(p.lex.src[start:p.lastEnd()])}
	}
	p.fail("expected a type, found %s", describe(p.tok))
	return TensorType{}
}

// parseTensorType scans "tensor<4x3xf32>" straight from the source, since
// the lexer would split "4x3xf32" wrongly.
func (p *parser) parseTensorType() TensorType {
	start := p.tok.pos
	src := p.lex.src
	i := p.peek().pos + 1 // just after "<"
	var shape []int64
	for {
		j := i
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		if j < len(src) && j > i && src[j] == 'x' {
			d, err := strconv.ParseInt(string(src[i:j]), 10, 64)
			if err != nil {
				p.failAt(i, "bad dimension")
			}
			shape = append(shape, d)
			i = j + 1
			continue
		}
		if j < len(src) && j == i && src[j] == '?' {
			p.unsupportedAt(i, "dynamic dimensions are not supported")
		}
		break
	}
	// The element type runs to the closing ">" or to "," before an encoding.
	depth, j := 0, i
	for ; j < len(src); j++ {
		c := src[j]
		if c == '<' {
			depth++
		} else if c == '>' && !(j > 0 && src[j-1] == '-') {
			if depth == 0 {
				break
			}
			depth--
		} else if (c == ',' || c == '\n') && depth == 0 {
			break
		}
	}
	if j >= len(src) || src[j] == '\n' {
		p.failAt(start, "unterminated tensor type")
	}
	elemText := string(src[i:j])
	t := TensorType{Shape: shape}
	if e, ok := ParseElemType(elemText); ok {
		t.Elem = e
	}
	p.lex.off = j
	p.advance()
	if p.isPunct(",") { // encoding such as #stablehlo.bounds<...>; ignored
		for !p.isPunct(">") && p.tok.kind != tokEOF {
			if p.isPunct("<") || p.isPunct("(") || p.isPunct("[") || p.isPunct("{") {
				p.skipBalanced()
				continue
			}
			p.advance()
		}
	}
	p.expectPunct(">")
	if t.Elem == ElemInvalid {
		t.raw = string(src[start:p.lastEnd()])
	}
	return t
}

// parseTypeList parses "t1, t2, ..." (at least one).
func (p *parser) parseTypeList() []TensorType {
	ts := []TensorType{p.parseType()}
	for p.acceptPunct(",") {
		ts = append(ts, p.parseType())
	}
	return ts
}

// parseSignature parses what follows ":" in an op: "(A, B) -> C",
// "(A) -> (B, C)", "A -> B", or a plain list "A" / "A, B".
// It returns operand types (may be nil) and result types (nil when no arrow).
func (p *parser) parseSignature() (ins, outs []TensorType, arrow bool) {
	if p.acceptPunct("(") {
		if !p.isPunct(")") {
			ins = p.parseTypeList()
		}
		p.expectPunct(")")
	} else {
		ins = p.parseTypeList()
	}
	if p.tok.kind != tokArrow {
		return ins, nil, false
	}
	p.advance()
	if p.acceptPunct("(") {
		if !p.isPunct(")") {
			outs = p.parseResultTypesWithAttrs(nil)
		}
		p.expectPunct(")")
	} else {
		outs = []TensorType{p.parseType()}
	}
	return ins, outs, true
}

// parseResultTypesWithAttrs parses "T {attrs}, T {attrs}" and appends the
// attribute dictionaries to attrs when non-nil.
func (p *parser) parseResultTypesWithAttrs(attrs *[]map[string]*Attr) []TensorType {
	var ts []TensorType
	for {
		ts = append(ts, p.parseType())
		var d map[string]*Attr
		if p.isPunct("{") {
			d = p.parseDict()
		}
		if attrs != nil {
			*attrs = append(*attrs, d)
		}
		p.skipLoc()
		if !p.acceptPunct(",") {
			return ts
		}
	}
}
