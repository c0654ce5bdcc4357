package stablehlo

import (
	"fmt"
	"maps"
	"strconv"
)

// parser holds the state of one Parse call. Errors are raised by panicking
// with *parseError and turned into an *Error at the top (see Parse), which
// keeps the many small grammar functions free of error plumbing.
type parser struct {
	lex   lexer
	lines lineIndex
	tok   token
	mod   *Module

	// per-function state
	scopes []map[string]int
	nslots int
	fn     *Func
	meshes map[string]string // sdy.mesh name -> raw "<[...]>" text
	depth  int               // nesting of attributes and regions
}

// maxNesting bounds recursion so hostile input cannot exhaust the stack.
const maxNesting = 500

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.fail("nesting deeper than %d levels", maxNesting)
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) failAt(off int, format string, args ...any) {
	panic(&parseError{off: off, msg: fmt.Sprintf(format, args...)})
}

// unsupportedAt reports valid input that this package cannot represent,
// such as dynamic shapes; Parse returns it as Unimplemented.
func (p *parser) unsupportedAt(off int, format string, args ...any) {
	panic(&parseError{off: off, msg: fmt.Sprintf(format, args...), unsupported: true})
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.tok.pos, format, args...) }

func (p *parser) advance() {
	t, err := p.lex.next()
	if err != nil {
		panic(err)
	}
	p.tok = t
}

// peek returns the token after the current one without consuming it.
func (p *parser) peek() token {
	saved := p.lex.off
	t, err := p.lex.next()
	p.lex.off = saved
	if err != nil {
		return token{kind: tokEOF, pos: saved}
	}
	return t
}

func (p *parser) isPunct(s string) bool { return p.tok.kind == tokPunct && p.tok.text == s }

func (p *parser) isIdent(s string) bool { return p.tok.kind == tokIdent && p.tok.text == s }

func (p *parser) acceptPunct(s string) bool {
	if p.isPunct(s) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) acceptIdent(s string) bool {
	if p.isIdent(s) {
		p.advance()
		return true
	}
	return false
}

func (p *parser) expectPunct(s string) {
	if !p.acceptPunct(s) {
		p.fail("expected %q, found %s", s, describe(p.tok))
	}
}

func (p *parser) expectArrow() {
	if p.tok.kind != tokArrow {
		p.fail("expected \"->\", found %s", describe(p.tok))
	}
	p.advance()
}

func (p *parser) expectIdent(s string) {
	if !p.acceptIdent(s) {
		p.fail("expected %q, found %s", s, describe(p.tok))
	}
}

func (p *parser) expectKind(k tokKind, what string) token {
	if p.tok.kind != k {
		p.fail("expected %s, found %s", what, describe(p.tok))
	}
	t := p.tok
	p.advance()
	return t
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokValue:
		return "%" + t.text
	case tokSymbol:
		return "@" + t.text
	case tokHash:
		return "#" + t.text
	case tokString:
		return strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

func (p *parser) expectInt() int64 {
	t := p.expectKind(tokInt, "an integer")
	v, err := parseIntLiteral(t.text)
	if err != nil {
		p.failAt(t.pos, "bad integer %q", t.text)
	}
	return v
}

// parseIntLiteral accepts decimal and hex, signed, and unsigned values up
// to 2^64-1 (stored as their int64 bit pattern).
func parseIntLiteral(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return v, nil
	}
	u, err := strconv.ParseUint(s, 0, 64)
	return int64(u), err
}

// skipBalanced consumes tokens from an opening bracket to its match. Inside
// angle brackets "->" is a token of its own, so it never counts as ">".
var closeOf = map[string]string{"(": ")", "[": "]", "{": "}", "<": ">"}

func (p *parser) skipBalanced() {
	open := p.tok.text
	if _, ok := closeOf[open]; !ok || p.tok.kind != tokPunct {
		p.fail("expected a bracket, found %s", describe(p.tok))
	}
	var stack []string
	for {
		if p.tok.kind == tokEOF {
			p.fail("unbalanced %q", open)
		}
		if p.tok.kind == tokPunct {
			if c, ok := closeOf[p.tok.text]; ok {
				stack = append(stack, c)
			} else if len(stack) > 0 && p.tok.text == stack[len(stack)-1] {
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					p.advance()
					return
				}
			}
		}
		p.advance()
	}
}

// rawBalanced returns the source text of a balanced bracket group starting
// at the current token and consumes it.
func (p *parser) rawBalanced() string {
	start := p.tok.pos
	p.skipBalanced()
	end := p.lastEnd()
	return string(p.lex.src[start:end])
}

// lastEnd is the end offset of the previously consumed token: the start of
// the current token minus trailing whitespace.
func (p *parser) lastEnd() int {
	e := p.tok.pos
	for e > 0 {
		c := p.lex.src[e-1]
		if c != ' ' && c != '\n' && c != '\t' && c != '\r' {
			break
		}
		e--
	}
	return e
}

// skipLoc consumes an optional trailing loc(...) location.
func (p *parser) skipLoc() {
	if p.isIdent("loc") && p.peek().text == "(" {
		p.advance()
		p.skipBalanced()
	}
}

// Scopes map SSA names to frame slots. Regions open a scope: sibling
// regions may reuse a name, and inner code sees outer values.

func (p *parser) pushScope() { p.scopes = append(p.scopes, map[string]int{}) }
func (p *parser) popScope()  { p.scopes = p.scopes[:len(p.scopes)-1] }

func (p *parser) define(name string, off int) int {
	top := p.scopes[len(p.scopes)-1]
	if _, dup := top[name]; dup {
		p.failAt(off, "redefinition of %%%s", name)
	}
	slot := p.nslots
	p.nslots++
	top[name] = slot
	return slot
}

func (p *parser) lookup(t token) int {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if s, ok := p.scopes[i][t.text]; ok {
			return s
		}
	}
	p.failAt(t.pos, "use of undefined value %%%s", t.text)
	return 0
}

func (p *parser) parseOperand() int {
	t := p.expectKind(tokValue, "an SSA value")
	return p.lookup(t)
}

// parseOperandList parses "(%a, %b, ...)".
func (p *parser) parseOperandList() []int {
	var operands []int
	p.expectPunct("(")
	for !p.isPunct(")") {
		operands = append(operands, p.parseOperand())
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	return operands
}

// parseAttrsInto parses an optional "{attrs}" into op's attributes.
func (p *parser) parseAttrsInto(op *operation) {
	if p.isPunct("{") {
		maps.Copy(op.attrs, p.parseDict())
	}
}

// parseOpSignature parses ": (ins) -> outs" into op's types; what names
// the op in the error when the arrow is missing.
func (p *parser) parseOpSignature(op *operation, what string) {
	p.expectPunct(":")
	ins, outs, arrow := p.parseSignature()
	if !arrow {
		p.fail("expected \"->\" in %s signature", what)
	}
	op.operandTyps, op.resultTypes = ins, outs
}

// parseBlockArgs parses "(%a: T loc(...), ...)" into r's arguments in the
// current scope.
func (p *parser) parseBlockArgs(r *region) {
	p.expectPunct("(")
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
