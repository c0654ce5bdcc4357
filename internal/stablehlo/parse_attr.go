package stablehlo

import (
	"encoding/hex"
	"strings"
)

// AttrKind says which field of an Attr holds its value.
type AttrKind int

// Attribute kinds.
const (
	AttrUnit     AttrKind = iota
	AttrInt               // Int (with optional Type)
	AttrFloat             // Float
	AttrBool              // Bool
	AttrString            // Str
	AttrList              // List: [a, b], array<i64: ...>, or "a x b" pairs
	AttrDict              // Dict
	AttrDense             // dense<...> : Type
	AttrType              // Type
	AttrSymbol            // Str is the symbol name without "@"
	AttrEnum              // Str is a bare word such as GT or DEFAULT
	AttrDialect           // Str is "stablehlo.gather" etc.; Dict/List hold the body, Raw the text
	AttrFuncType          // FuncIns -> FuncOuts
)

// Attr is a parsed MLIR attribute.
type Attr struct {
	Kind  AttrKind
	Int   int64
	Float float64
	Bool  bool
	Str   string
	List  []*Attr
	Dict  map[string]*Attr
	Type  TensorType
	Raw   string

	FuncIns, FuncOuts []TensorType

	denseLits []string // element literals of dense<...>, row-major
	denseHex  []byte   // raw bytes of dense<"0x...">
}

// parseDict parses "{key = value, key2, ...}".
func (p *parser) parseDict() map[string]*Attr {
	p.expectPunct("{")
	d := map[string]*Attr{}
	for !p.isPunct("}") {
		var key string
		switch p.tok.kind {
		case tokIdent, tokString:
			key = p.tok.text
		default:
			p.fail("expected an attribute name, found %s", describe(p.tok))
		}
		p.advance()
		if p.acceptPunct("=") {
			d[key] = p.parseAttrValue()
		} else {
			d[key] = &Attr{Kind: AttrUnit}
		}
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct("}")
	return d
}

// parseAttrValue parses one attribute value.
func (p *parser) parseAttrValue() *Attr {
	p.enter()
	defer p.leave()
	start := p.tok.pos
	a := p.parseAttrValueNoType()
	// "1 : i32", "1.0 : f32", "dense<...> : tensor<...>"
	if (a.Kind == AttrInt || a.Kind == AttrFloat || a.Kind == AttrDense || a.Kind == AttrBool || a.Kind == AttrString) && p.isPunct(":") {
		p.advance()
		a.Type = p.parseType()
		if a.Kind == AttrInt && a.Type.Elem.isFloat() {
			// hex float bit patterns are written like integers
			a.Kind = AttrFloat
			a.Float = floatFromLiteral(p, start, a.Raw, a.Type.Elem)
		}
	}
	a.Raw = strings.TrimSpace(string(p.lex.src[start:p.lastEnd()]))
	return a
}

func floatFromLiteral(p *parser, off int, lit string, e ElemType) float64 {
	v, err := parseFloatLiteral(lit, e)
	if err != nil {
		p.failAt(off, "%v", err)
	}
	return v
}

func (p *parser) parseAttrValueNoType() *Attr {
	p.enter()
	defer p.leave()
	t := p.tok
	switch t.kind {
	case tokInt:
		p.advance()
		v, err := parseIntLiteral(t.text)
		if err != nil {
			p.failAt(t.pos, "bad integer %q", t.text)
		}
		return &Attr{Kind: AttrInt, Int: v, Raw: t.text}
	case tokFloat:
		p.advance()
		v, err := parseFloatLiteral(t.text, F64)
		if err != nil {
			p.failAt(t.pos, "%v", err)
		}
		return &Attr{Kind: AttrFloat, Float: v, Raw: t.text}
	case tokString:
		p.advance()
		return &Attr{Kind: AttrString, Str: t.text}
	case tokSymbol:
		p.advance()
		return &Attr{Kind: AttrSymbol, Str: t.text}
	case tokHash:
		p.advance()
		a := &Attr{Kind: AttrDialect, Str: t.text}
		if p.isPunct("<") {
			p.parseDialectBody(a)
		}
		return a
	case tokPunct:
		switch t.text {
		case "[":
			p.advance()
			a := &Attr{Kind: AttrList}
			for !p.isPunct("]") {
				a.List = append(a.List, p.parseAttrValue())
				if !p.acceptPunct(",") {
					break
				}
			}
			p.expectPunct("]")
			return a
		case "{":
			return &Attr{Kind: AttrDict, Dict: p.parseDict()}
		case "<":
			a := &Attr{Kind: AttrDialect}
			p.parseDialectBody(a)
			return a
		case "(":
			ins, outs, arrow := p.parseSignature()
			if !arrow {
				p.failAt(t.pos, "expected a function type")
			}
			return &Attr{Kind: AttrFuncType, FuncIns: ins, FuncOuts: outs}
		}
	case tokIdent:
		switch t.text {
		case "true", "false":
			p.advance()
			return &Attr{Kind: AttrBool, Bool: t.text == "true"}
		case "unit":
			p.advance()
			return &Attr{Kind: AttrUnit}
		case "dense":
			return p.parseDense()
		case "dense_resource":
			p.unsupportedAt(t.pos, "dense_resource constants are not supported; print the module without elided constants")
		case "array":
			return p.parseArrayAttr()
		case "tensor":
			return &Attr{Kind: AttrType, Type: p.parseType()}
		case "inf", "nan":
			p.advance()
			v, _ := parseFloatLiteral(t.text, F64)
			return &Attr{Kind: AttrFloat, Float: v, Raw: t.text}
		}
		if e, ok := ParseElemType(t.text); ok && p.peek().text != "=" {
			p.advance()
			return &Attr{Kind: AttrType, Type: TensorType{Elem: e}}
		}
		p.advance()
		return &Attr{Kind: AttrEnum, Str: t.text}
	}
	p.fail("expected an attribute value, found %s", describe(t))
	return nil
}

// parseDialectBody parses "<...>" after a dialect attribute name. It keeps
// the raw text and, where the body is a list of "key = value" or
// "key VALUE" items, a Dict; other items go to List. Bodies it cannot
// read (e.g. sdy shardings) survive as Raw only.
func (p *parser) parseDialectBody(a *Attr) {
	start := p.tok.pos
	saved, savedTok := p.lex.off, p.tok
	ok := func() (ok bool) {
		defer func() {
			if r := recover(); r != nil {
				if _, isParse := r.(*parseError); !isParse {
					panic(r)
				}
				ok = false
			}
		}()
		p.expectPunct("<")
		a.Dict = map[string]*Attr{}
		for !p.isPunct(">") {
			if p.tok.kind == tokIdent {
				next := p.peek()
				if next.text == "=" {
					key := p.tok.text
					p.advance()
					p.advance()
					a.Dict[key] = p.parseAttrValue()
				} else if next.kind == tokIdent {
					key := p.tok.text
					p.advance()
					a.Dict[key] = p.parseAttrValue()
				} else {
					a.List = append(a.List, p.parseAttrValue())
				}
			} else {
				a.List = append(a.List, p.parseAttrValue())
			}
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct(">")
		return true
	}()
	if !ok {
		p.lex.off, p.tok = saved, savedTok
		a.Dict, a.List = nil, nil
		p.skipBalanced()
	}
	a.Raw = string(p.lex.src[start:p.lastEnd()])
}

// parseArrayAttr parses "array<i64: 1, 2>" (or "array<i64>").
func (p *parser) parseArrayAttr() *Attr {
	p.expectIdent("array")
	p.expectPunct("<")
	elem := p.parseType()
	a := &Attr{Kind: AttrList, Type: elem}
	if p.acceptPunct(":") {
		for {
			v := p.parseAttrValueNoType()
			a.List = append(a.List, v)
			if !p.acceptPunct(",") {
				break
			}
		}
	}
	p.expectPunct(">")
	return a
}

// parseDense parses dense<...>; the literals are converted once the type
// (after ":") is known, see denseArray.
func (p *parser) parseDense() *Attr {
	p.expectIdent("dense")
	p.expectPunct("<")
	a := &Attr{Kind: AttrDense}
	if p.tok.kind == tokString {
		s := p.tok.text
		if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			p.fail("expected a hex string in dense<>")
		}
		b, err := hex.DecodeString(s[2:])
		if err != nil {
			p.fail("bad hex in dense<>: %v", err)
		}
		a.denseHex = b
		p.advance()
	} else if !p.isPunct(">") {
		p.parseDenseLits(a)
	}
	p.expectPunct(">")
	return a
}

func (p *parser) parseDenseLits(a *Attr) {
	p.enter()
	defer p.leave()
	switch {
	case p.acceptPunct("["):
		for !p.isPunct("]") {
			p.parseDenseLits(a)
			if !p.acceptPunct(",") {
				break
			}
		}
		p.expectPunct("]")
	case p.tok.kind == tokInt || p.tok.kind == tokFloat:
		a.denseLits = append(a.denseLits, p.tok.text)
		p.advance()
	case p.tok.kind == tokIdent && (p.tok.text == "true" || p.tok.text == "false" || p.tok.text == "inf" || p.tok.text == "nan"):
		a.denseLits = append(a.denseLits, p.tok.text)
		p.advance()
	case p.acceptPunct("("): // a complex element: (real, imaginary)
		re := p.denseScalar()
		p.expectPunct(",")
		im := p.denseScalar()
		p.expectPunct(")")
		a.denseLits = append(a.denseLits, "("+re+","+im+")")
	default:
		p.fail("expected a dense element, found %s", describe(p.tok))
	}
}

// denseScalar reads one real element literal of a dense<...> and returns
// its text.
func (p *parser) denseScalar() string {
	if p.tok.kind != tokInt && p.tok.kind != tokFloat && !(p.tok.kind == tokIdent && (p.tok.text == "inf" || p.tok.text == "nan")) {
		p.fail("expected a number, found %s", describe(p.tok))
	}
	s := p.tok.text
	p.advance()
	return s
}

// maxIntList bounds the lists Ints expands from a splat.
const maxIntList = 1 << 20

// Ints returns the integers of a list, array<...> or dense attribute.
func (a *Attr) Ints() ([]int64, bool) {
	if a == nil {
		return nil, false
	}
	switch a.Kind {
	case AttrList:
		out := make([]int64, 0, len(a.List))
		for _, v := range a.List {
			if v.Kind != AttrInt {
				return nil, false
			}
			out = append(out, v.Int)
		}
		return out, true
	case AttrDense:
		if a.denseHex != nil { // from bytecode
			if a.Type.NumElements() > maxIntList {
				return nil, false
			}
			arr, err := denseArray(a, a.Type)
			if err != nil || !a.Type.Elem.isInt() {
				return nil, false
			}
			out := make([]int64, arr.size())
			for i := range out {
				out[i] = arr.intAt(i)
			}
			return out, true
		}
		out := make([]int64, 0, len(a.denseLits))
		for _, s := range a.denseLits {
			v, err := parseIntLiteral(s)
			if err != nil {
				return nil, false
			}
			out = append(out, v)
		}
		if n := a.Type.NumElements(); len(out) == 1 && n > 1 {
			if n > maxIntList {
				return nil, false
			}
			for int64(len(out)) < n {
				out = append(out, out[0])
			}
		}
		return out, true
	case AttrInt:
		return []int64{a.Int}, true
	}
	return nil, false
}
