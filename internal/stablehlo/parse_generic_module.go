package stablehlo

// The fully generic form prints the module and functions as ops too:
//
//	"builtin.module"() <{sym_name = "m"}> ({
//	  "func.func"() <{function_type = (...) -> ..., sym_name = "main", ...}> ({
//	  ^bb0(%arg0: tensor<3xf32>): ...
//	  }) : () -> ()
//	}) {mhlo.num_partitions = 1 : i32} : () -> ()

func (p *parser) parseGenericModule() {
	p.advance() // "builtin.module"
	p.expectPunct("(")
	p.expectPunct(")")
	if p.acceptPunct("<") {
		props := p.parseDict()
		p.expectPunct(">")
		if a := props["sym_name"]; a != nil {
			p.mod.name = a.Str
		}
	}
	p.expectPunct("(")
	p.expectPunct("{")
	for !p.isPunct("}") {
		switch {
		case p.tok.kind == tokString && p.tok.text == "func.func":
			p.parseGenericFunc()
		default:
			p.failInModule()
		}
	}
	p.expectPunct("}")
	p.expectPunct(")")
	if p.isPunct("{") {
		p.mod.attrs = p.parseDict()
	}
	p.expectPunct(":")
	p.parseSignature()
	p.skipLoc()
}

func (p *parser) parseGenericFunc() {
	start := p.tok.pos
	p.advance() // "func.func"
	p.expectPunct("(")
	p.expectPunct(")")
	var props map[string]*Attr
	if p.acceptPunct("<") {
		props = p.parseDict()
		p.expectPunct(">")
	}
	name := props["sym_name"]
	ft := props["function_type"]
	if name == nil || name.Kind != AttrString || ft == nil || ft.Kind != AttrFuncType {
		p.failAt(start, "func.func needs sym_name and function_type")
	}
	f := &Func{Name: name.Str, Public: true}
	if v := props["sym_visibility"]; v != nil && v.Str != "public" {
		f.Public = false
	}
	if _, dup := p.mod.funcs[f.Name]; dup {
		p.failAt(start, "redefinition of function @%s", f.Name)
	}
	f.params = p.valuesOf(ft.FuncIns, props["arg_attrs"])
	f.results = p.valuesOf(ft.FuncOuts, props["res_attrs"])
	p.fn, p.nslots, p.scopes = f, 0, nil
	p.pushScope()
	p.expectPunct("(")
	if p.isPunct("{") {
		f.body = p.parseRegion()
		if len(f.body.args) != len(f.params) {
			p.failAt(start, "@%s: %d block arguments for %d parameters", f.Name, len(f.body.args), len(f.params))
		}
	}
	p.expectPunct(")")
	if p.isPunct("{") {
		p.parseDict()
	}
	p.expectPunct(":")
	p.parseSignature()
	p.skipLoc()
	f.numSlots = p.nslots
	p.popScope()
	p.mod.funcs[f.Name] = f
}

// valuesOf pairs types with the attribute dictionaries of a list such as
// arg_attrs.
func (p *parser) valuesOf(types []TensorType, attrs *Attr) []Value {
	dicts := listOfDicts(attrs)
	var vs []Value
	for i, t := range types {
		v := Value{Type: t}
		if i < len(dicts) {
			v.Attrs = dicts[i]
		}
		p.fillValue(&v)
		vs = append(vs, v)
	}
	return vs
}

func listOfDicts(a *Attr) []map[string]*Attr {
	if a == nil || a.Kind != AttrList {
		return nil
	}
	out := make([]map[string]*Attr, len(a.List))
	for i, d := range a.List {
		out[i] = d.Dict
	}
	return out
}
