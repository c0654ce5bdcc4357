package stablehlo

import (
	"errors"
	"runtime/debug"
	"strconv"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// A StableHLO portable artifact is MLIR bytecode whose ops are in the
// versioned VHLO dialect (vhlo.add_v1, vhlo.func_v1, ...), with Shardy ops
// and attributes unversioned where the producer kept them. parseBytecode
// reads it with internal/mlirbc and converts it into the IR the text parser
// builds for the same program: each vhlo.X_vN becomes stablehlo.X (or
// func.func, func.call) with the attributes of StableHLO's generic form,
// older op versions read as the current op.

// bcConverter holds the state of one bytecode conversion.
type bcConverter struct {
	p     *parser
	slots []int     // by mlirbc.Value.ID: slot + 1, 0 before the definition
	props vhloProps // of the op being converted
	enums map[string]*Attr
}

func parseBytecode(src []byte) (m *Module, err error) {
	bc, err := mlirbc.Read(src)
	if err != nil {
		var e *mlirbc.Error
		if errors.As(err, &e) {
			return nil, errorf(e.Code(), "offset %d: %s", e.Offset, e.Msg)
		}
		return nil, err
	}
	c := &bcConverter{
		p:     &parser{meshes: map[string]string{}, mod: &Module{funcs: map[string]*Func{}, numPartitions: 1, numReplicas: 1}},
		enums: map[string]*Attr{},
	}
	defer func() {
		if r := recover(); r != nil {
			m = nil
			if be, ok := r.(*bytecodeError); ok {
				err = be.err
				return
			}
			err = internalf("bytecode conversion failure: %v\n%s", r, debug.Stack())
		}
	}()
	c.slots = make([]int, bc.NumValues)
	c.module(bc)
	if err := c.p.finish(); err != nil {
		return nil, err
	}
	return c.p.mod, nil
}

// bytecodeError carries a conversion error up to parseBytecode.
type bytecodeError struct{ err *Error }

func (c *bcConverter) fail(op *mlirbc.Operation, code int, format string, args ...any) {
	e := errorf(code, format, args...)
	if op != nil {
		e.Msg = "offset " + strconv.Itoa(op.Offset) + ": " + op.Name + ": " + e.Msg
	}
	panic(&bytecodeError{e})
}

func (c *bcConverter) module(bc *mlirbc.Module) {
	if len(bc.Ops) != 1 || bc.Ops[0].Name != "builtin.module" {
		c.fail(nil, InvalidArgument, "bytecode must hold one builtin.module, found %d top-level ops", len(bc.Ops))
	}
	mod := bc.Ops[0]
	if name, ok := mod.Attr("sym_name").(*mlirbc.StringAttr); ok {
		c.p.mod.name = name.Value
	}
	c.p.mod.attrs = c.dict(mod, mod.Attrs)
	body := c.singleBlock(mod, 0)
	// Meshes first: functions' sdy.sharding attributes refer to them.
	for _, op := range body.Ops {
		switch op.Name {
		case "sdy.mesh":
			name, ok1 := op.Attr("sym_name").(*mlirbc.StringAttr)
			mesh, ok2 := op.Attr("mesh").(*mlirbc.SdyMesh)
			if !ok1 || !ok2 {
				c.fail(op, InvalidArgument, "needs sym_name and mesh")
			}
			c.p.meshes[name.Value] = mesh.Body()
		case "vhlo.func_v1":
		default:
			c.fail(op, Unimplemented, "op at module level is not supported")
		}
	}
	for _, op := range body.Ops {
		if op.Name == "vhlo.func_v1" {
			c.function(op)
		}
	}
}

// singleBlock returns the only block of op's i-th region.
func (c *bcConverter) singleBlock(op *mlirbc.Operation, i int) *mlirbc.Block {
	if i >= len(op.Regions) {
		c.fail(op, InvalidArgument, "has %d regions, needs %d", len(op.Regions), i+1)
	}
	r := op.Regions[i]
	if len(r.Blocks) != 1 {
		c.fail(op, Unimplemented, "regions with %d blocks are not supported", len(r.Blocks))
	}
	return r.Blocks[0]
}

func (c *bcConverter) function(op *mlirbc.Operation) {
	name, ok := op.Attr("sym_name").(*mlirbc.VHLOString)
	if !ok {
		c.fail(op, InvalidArgument, "missing sym_name")
	}
	ft, ok := op.Attr("function_type").(*mlirbc.VHLOTypeAttr)
	if !ok {
		c.fail(op, InvalidArgument, "missing function_type")
	}
	sig, ok := ft.Type.(*mlirbc.VHLOFunctionType)
	if !ok {
		c.fail(op, InvalidArgument, "function_type is %s", ft.Type)
	}
	f := &Func{Name: name.Value, Public: true}
	if v, ok := op.Attr("sym_visibility").(*mlirbc.VHLOString); ok && v.Value != "" && v.Value != "public" {
		f.Public = false
	}
	if _, dup := c.p.mod.funcs[f.Name]; dup {
		c.fail(op, InvalidArgument, "redefinition of function @%s", f.Name)
	}
	f.params = c.values(op, sig.Inputs, op.Attr("arg_attrs"))
	f.results = c.values(op, sig.Outputs, op.Attr("res_attrs"))
	c.p.nslots = 0
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		f.body = c.region(op, 0)
		if len(f.body.args) != len(f.params) {
			c.fail(op, InvalidArgument, "@%s: %d block arguments for %d parameters", f.Name, len(f.body.args), len(f.params))
		}
		// Bytecode stores the block's argument types and the function type
		// apart (text derives both from one signature): they must agree, as
		// must the returned values with the results.
		for i, t := range f.body.argTypes {
			if !t.Equal(f.params[i].Type) {
				c.fail(op, InvalidArgument, "@%s: argument %d has type %s, the function type says %s", f.Name, i, t, f.params[i].Type)
			}
		}
		blk := op.Regions[0].Blocks[0]
		term := blk.Ops[len(blk.Ops)-1]
		if len(term.Operands) != len(f.results) {
			c.fail(term, InvalidArgument, "@%s returns %d values, the function type says %d", f.Name, len(term.Operands), len(f.results))
		}
		for i, v := range term.Operands {
			if t := c.tensorType(term, v.Type); !t.Equal(f.results[i].Type) {
				c.fail(term, InvalidArgument, "@%s: result %d has type %s, the function type says %s", f.Name, i, t, f.results[i].Type)
			}
		}
	}
	f.numSlots = c.p.nslots
	c.p.mod.funcs[f.Name] = f
}

// values describes a function's parameters or results: their types and
// attributes (arg_attrs or res_attrs, an array of dictionaries).
func (c *bcConverter) values(op *mlirbc.Operation, types []mlirbc.Type, attrs mlirbc.Attribute) []Value {
	arr, _ := attrs.(*mlirbc.VHLOArray)
	out := make([]Value, len(types))
	for i, t := range types {
		out[i].Type = c.tensorType(op, t)
		if arr != nil && i < len(arr.Elems) {
			d, ok := arr.Elems[i].(*mlirbc.VHLODict)
			if !ok {
				c.fail(op, InvalidArgument, "argument or result attributes are not dictionaries")
			}
			if len(d.Entries) > 0 {
				out[i].Attrs = c.convertAttr(op, d).Dict
			}
		}
		c.p.fillValue(&out[i])
	}
	return out
}

// dict converts a list of named attributes, or returns nil if it is empty.
func (c *bcConverter) dict(op *mlirbc.Operation, attrs []mlirbc.NamedAttr) map[string]*Attr {
	if len(attrs) == 0 {
		return nil
	}
	d := make(map[string]*Attr, len(attrs))
	for _, a := range attrs {
		d[a.Name] = c.convertAttr(op, a.Value)
	}
	return d
}

func (c *bcConverter) newSlot() int {
	s := c.p.nslots
	c.p.nslots++
	return s
}

// region converts op's i-th region: its block arguments get new slots, then
// its ops in order; the terminator's operands become the region's results.
func (c *bcConverter) region(op *mlirbc.Operation, i int) *region {
	b := c.singleBlock(op, i)
	r := &region{}
	for _, a := range b.Args {
		s := c.newSlot()
		c.slots[a.ID] = s + 1
		r.args = append(r.args, s)
		r.argTypes = append(r.argTypes, c.tensorType(op, a.Type))
	}
	if len(b.Ops) == 0 {
		c.fail(op, InvalidArgument, "a block has no terminator")
	}
	for _, inner := range b.Ops[:len(b.Ops)-1] {
		if converted := c.op(inner); converted != nil {
			r.ops = append(r.ops, converted)
		}
	}
	term := b.Ops[len(b.Ops)-1]
	switch term.Name {
	case "vhlo.return_v1", "sdy.return", "func.return", "stablehlo.return":
	default:
		c.fail(term, InvalidArgument, "a block must end with a return")
	}
	for _, v := range term.Operands {
		r.rets = append(r.rets, c.slot(term, v))
	}
	return r
}

func (c *bcConverter) slot(op *mlirbc.Operation, v *mlirbc.Value) int {
	if v.ID < 0 || v.ID >= len(c.slots) || c.slots[v.ID] == 0 {
		c.fail(op, InvalidArgument, "uses a value before its definition")
	}
	return c.slots[v.ID] - 1
}

// op converts one operation, or returns nil for the casts that mixed
// serialization puts between VHLO and other dialects, which only rename a
// value.
func (c *bcConverter) op(op *mlirbc.Operation) *operation {
	if op.Name == "builtin.unrealized_conversion_cast" {
		if len(op.Operands) != 1 || len(op.Results) != 1 {
			c.fail(op, Unimplemented, "only one-to-one casts are supported")
		}
		c.slots[op.Results[0].ID] = c.slot(op, op.Operands[0]) + 1
		return nil
	}
	out := &operation{pos: op.Offset, attrs: make(map[string]*Attr, len(op.Props)+len(op.Attrs)),
		operands: make([]int, 0, len(op.Operands)), operandTyps: make([]TensorType, 0, len(op.Operands)),
		results: make([]int, 0, len(op.Results)), resultTypes: make([]TensorType, 0, len(op.Results))}
	for _, v := range op.Operands {
		out.operands = append(out.operands, c.slot(op, v))
		out.operandTyps = append(out.operandTyps, c.tensorType(op, v.Type))
	}
	c.convertOp(op, out)
	for i := range op.Regions {
		out.regions = append(out.regions, c.region(op, i))
	}
	for _, v := range op.Results {
		s := c.newSlot()
		c.slots[v.ID] = s + 1
		out.results = append(out.results, s)
		out.resultTypes = append(out.resultTypes, c.tensorType(op, v.Type))
	}
	return out
}
