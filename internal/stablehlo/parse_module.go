package stablehlo

import (
	"errors"
	"runtime/debug"
	"strings"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// Parse parses a module in MLIR text form, pretty-printed or generic, as
// jax.jit(f).lower(...).as_text() prints it, or a StableHLO portable
// artifact (MLIR bytecode of the VHLO dialect, as JAX sends to an IFRT
// proxy server and jax.export writes), into the same IR. Syntax errors are
// InvalidArgument *Errors whose message starts with "line:col: " in text and
// "mlirbc: offset: " in bytecode; valid input the package cannot represent
// (dynamic shapes, elided constants, dialects it does not know) is
// Unimplemented. Ops the interpreter cannot run do not fail Parse; see
// Module.Unsupported.
func Parse(src []byte) (m *Module, err error) {
	if mlirbc.IsBytecode(src) {
		return parseBytecode(src)
	}
	p := &parser{lex: lexer{src: src}, lines: newLineIndex(src), meshes: map[string]string{}}
	p.mod = &Module{funcs: map[string]*Func{}, numPartitions: 1, numReplicas: 1}
	defer func() {
		if r := recover(); r != nil {
			m = nil
			if pe, ok := r.(*parseError); ok {
				line, col := p.lines.position(pe.off)
				code := InvalidArgument
				if pe.unsupported {
					code = Unimplemented
				}
				err = errorf(code, "%d:%d: %s", line, col, pe.msg)
				return
			}
			line, col := p.lines.position(p.tok.pos)
			err = internalf("%d:%d: parser failure: %v\n%s", line, col, r, debug.Stack())
		}
	}()
	p.advance()
	p.parseTopLevel()
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.mod, nil
}

func (p *parser) parseTopLevel() {
	sawModule := false
	for p.tok.kind != tokEOF {
		switch {
		case p.tok.kind == tokHash || p.tok.kind == tokBang: // #loc1 = loc(...), aliases
			p.advance()
			p.expectPunct("=")
			if p.isIdent("loc") {
				p.skipLoc()
			} else if p.tok.kind == tokBang || p.isIdent("tensor") {
				p.parseType()
			} else {
				p.parseAttrValue()
			}
		case p.isIdent("module"):
			if sawModule {
				p.fail("more than one top-level module")
			}
			sawModule = true
			p.parseModule()
		case p.isIdent("func.func"):
			p.parseFunc()
		case p.tok.kind == tokString && p.tok.text == "builtin.module":
			if sawModule {
				p.fail("more than one top-level module")
			}
			sawModule = true
			p.parseGenericModule()
		default:
			p.fail("expected \"module\", found %s", describe(p.tok))
		}
	}
}

func (p *parser) parseModule() {
	p.expectIdent("module")
	if p.tok.kind == tokSymbol {
		p.mod.name = p.tok.text
		p.advance()
	}
	if p.acceptIdent("attributes") {
		p.mod.attrs = p.parseDict()
	}
	p.expectPunct("{")
	for !p.isPunct("}") {
		switch {
		case p.isIdent("func.func"):
			p.parseFunc()
		case p.isIdent("sdy.mesh"):
			p.advance()
			name := p.expectKind(tokSymbol, "a mesh name").text
			p.expectPunct("=")
			if p.isPunct("<") {
				p.meshes[name] = p.rawBalanced()
			} else if p.tok.kind == tokHash {
				p.parseAttrValue()
			}
			if p.isPunct("{") {
				p.parseDict()
			}
			p.skipLoc()
		default:
			p.failInModule()
		}
	}
	p.expectPunct("}")
	p.skipLoc()
}

// failInModule reports the token that stands where a module's next
// operation should.
func (p *parser) failInModule() {
	if p.tok.kind == tokEOF {
		p.fail("unexpected end of input in module")
	}
	p.fail("expected \"func.func\" in module, found %s", describe(p.tok))
}

func (p *parser) parseFunc() {
	p.expectIdent("func.func")
	f := &Func{}
	switch {
	case p.acceptIdent("public"):
		f.Public = true
	case p.acceptIdent("private"), p.acceptIdent("nested"):
	default:
		f.Public = true // MLIR's default visibility is public
	}
	nameTok := p.expectKind(tokSymbol, "a function name")
	f.Name = nameTok.text
	if _, dup := p.mod.funcs[f.Name]; dup {
		p.failAt(nameTok.pos, "redefinition of function @%s", f.Name)
	}
	p.fn, p.nslots, p.scopes = f, 0, nil
	p.pushScope()
	body := &region{}
	p.expectPunct("(")
	for !p.isPunct(")") {
		t := p.expectKind(tokValue, "an argument name")
		p.expectPunct(":")
		v := Value{Type: p.parseType()}
		if p.isPunct("{") {
			v.Attrs = p.parseDict()
		}
		p.skipLoc()
		p.fillValue(&v)
		f.params = append(f.params, v)
		body.args = append(body.args, p.define(t.text, t.pos))
		body.argTypes = append(body.argTypes, v.Type)
		if !p.acceptPunct(",") {
			break
		}
	}
	p.expectPunct(")")
	if p.tok.kind == tokArrow {
		p.advance()
		var attrs []map[string]*Attr
		var types []TensorType
		if p.acceptPunct("(") {
			if !p.isPunct(")") {
				types = p.parseResultTypesWithAttrs(&attrs)
			}
			p.expectPunct(")")
		} else {
			types = []TensorType{p.parseType()}
			attrs = []map[string]*Attr{nil}
		}
		for i, t := range types {
			v := Value{Type: t, Attrs: attrs[i]}
			p.fillValue(&v)
			f.results = append(f.results, v)
		}
	}
	if p.acceptIdent("attributes") {
		p.parseDict()
	}
	if p.isPunct("{") {
		p.parseBlockInto(body)
		f.body = body
	}
	p.skipLoc()
	f.numSlots = p.nslots
	p.popScope()
	p.mod.funcs[f.Name] = f
}

// fillValue derives Sharding and DonorOrAlias from the attribute dictionary.
func (p *parser) fillValue(v *Value) {
	if a := v.Attrs["mhlo.sharding"]; a != nil && a.Kind == AttrString {
		v.Sharding = a.Str
	} else if a := v.Attrs["sdy.sharding"]; a != nil {
		if s, err := sdyToHloSharding(a.Raw, p.meshes, nil); err == nil {
			v.Sharding = s
		}
	}
	if a := v.Attrs["jax.buffer_donor"]; a != nil && (a.Kind == AttrUnit || (a.Kind == AttrBool && a.Bool)) {
		v.DonorOrAlias = true
	}
	if _, ok := v.Attrs["tf.aliasing_output"]; ok {
		v.DonorOrAlias = true
	}
}

// parseBlockInto parses "{ ops }" into r.
func (p *parser) parseBlockInto(r *region) {
	p.expectPunct("{")
	p.parseOpsInto(r, "block")
}

// parseOpsInto parses "ops }" into r; where names the construct for the
// error at the end of the input.
func (p *parser) parseOpsInto(r *region, where string) {
	for !p.isPunct("}") {
		if p.tok.kind == tokEOF {
			p.fail("unexpected end of input in %s", where)
		}
		if p.parseOp(r) {
			break
		}
	}
	p.expectPunct("}")
}

// finish resolves calls and @main and records unsupported ops.
func (p *parser) finish() error {
	m := p.mod
	if a := m.attrs["mhlo.num_partitions"]; a != nil && a.Kind == AttrInt {
		m.numPartitions = int(a.Int)
	}
	if a := m.attrs["mhlo.num_replicas"]; a != nil && a.Kind == AttrInt {
		m.numReplicas = int(a.Int)
	}
	m.main = m.funcs["main"]
	if m.main == nil || m.main.body == nil {
		return invalidf("module has no function @main")
	}
	for _, v := range append(append([]Value(nil), m.main.params...), m.main.results...) {
		if !v.Type.supported() && m.unsupported == nil {
			m.unsupported = unimplementedf("@main uses type %s, which is not supported", v.Type)
		}
	}
	for _, name := range sortedFuncNames(m.funcs) {
		f := m.funcs[name]
		for _, v := range append(append([]Value(nil), f.params...), f.results...) {
			if v.Sharding != "" && strings.Contains(v.Sharding, "manual") {
				m.collectives = true
			}
		}
		if f.body != nil {
			if err := p.resolveRegion(f.body); err != nil {
				return err
			}
		}
	}
	m.inferProcessShardings()
	p.inferResultShardings()
	m.placeProcessValues()
	m.inlineCalls()
	m.markNativeThreefry()
	for _, name := range sortedFuncNames(m.funcs) {
		if f := m.funcs[name]; f.body != nil {
			fuseRegion(f.body)
			markLastUses(f.body)
		}
	}
	return nil
}

func (p *parser) resolveRegion(r *region) error {
	m := p.mod
	defs := map[int]*operation{}
	for _, op := range r.ops {
		if isCollective(op) {
			m.collectives = true
			p.resolveSPMD(op, defs)
		}
		for _, s := range op.results {
			defs[s] = op
		}
		if op.callee != "" && (op.Name == "func.call" || op.Name == "stablehlo.composite") {
			f := m.funcs[op.callee]
			if f == nil || f.body == nil {
				return invalidf("%s: call to unknown function @%s", op.at(), op.callee)
			}
			if len(f.params) != len(op.operands) || len(f.results) != len(op.results) {
				return invalidf("%s: call to @%s has %d operands and %d results, function has %d and %d",
					op.at(), op.callee, len(op.operands), len(op.results), len(f.params), len(f.results))
			}
		}
		if err := checkArity(op); err != nil {
			return err
		}
		op.eval = lookupEval(op)
		cacheConstant(op)
		if op.eval == nil && m.unsupported == nil {
			m.unsupported = unsupportedOp(op)
		}
		if m.unsupported == nil {
			for _, t := range append(append([]TensorType(nil), op.resultTypes...), op.operandTyps...) {
				if !t.supported() {
					m.unsupported = unimplementedf("%s: op %s: type %s is not supported", op.at(), op.Name, t)
					break
				}
			}
		}
		for _, sub := range op.regions {
			if err := p.resolveRegion(sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveSPMD resolves the process groups of a collective op or the
// shardings of an op entering or leaving a manual region. Forms the
// interpreter does not run make the module Unsupported; attributes that
// contradict the specification fail the op when it runs (other backends
// parse modules for their signatures only, so Parse stays lenient).
func (p *parser) resolveSPMD(op *operation, defs map[int]*operation) {
	p.resolveCollective(op)
	p.resolveManual(op, defs)
	var err error
	if op.collective != nil {
		err = op.collective.err
	} else if op.manual != nil {
		err = op.manual.err
	}
	var e *Error
	if errors.As(err, &e) && e.code == Unimplemented && p.mod.unsupported == nil {
		p.mod.unsupported = unimplementedf("%s: %s: %s", op.at(), op.Name, e.Msg)
	}
}

func isCollective(op *operation) bool {
	switch strings.TrimPrefix(op.Name, "stablehlo.") {
	case "all_reduce", "all_gather", "collective_permute", "all_to_all", "reduce_scatter",
		"collective_broadcast", "send", "recv", "partition_id", "replica_id":
		return true
	case "custom_call":
		switch op.callee {
		case "SPMDFullToShardShape", "SPMDShardToFullShape":
			return true
		}
		if a := op.attrs["mhlo.sharding"]; a != nil && strings.Contains(a.Str, "manual") {
			return true
		}
	}
	if strings.HasPrefix(op.Name, "sdy.manual_computation") || strings.HasPrefix(op.Name, "sdy.all_") {
		return true
	}
	return false
}

func sortedFuncNames(m map[string]*Func) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0 && names[j] < names[j-1]; j-- {
			names[j], names[j-1] = names[j-1], names[j]
		}
	}
	return names
}

// maxCachedConstant bounds the constants Parse decodes ahead of time; larger
// ones (often splats) are materialized per Run instead of held in memory.
const maxCachedConstant = 1 << 16

// cacheConstant decodes a small stablehlo.constant once. The array is
// marked shared, so no Run ever writes to it.
func cacheConstant(op *operation) {
	a := op.attrs["value"]
	if op.Name != "stablehlo.constant" || a == nil || a.Kind != AttrDense || len(op.resultTypes) != 1 ||
		op.resultTypes[0].NumElements() > maxCachedConstant {
		return
	}
	if arr, err := denseArray(a, op.resultTypes[0]); err == nil {
		arr.shared = true
		op.constant = arr
	}
}
