package stablehlo

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// Attribute and type conversion from bytecode: VHLO and builtin values
// become the *Attr the text parser builds for their StableHLO spelling;
// Shardy attributes and attributes stored as text are printed and parsed by
// the text parser, so they come out exactly as in text.

// elemType converts a VHLO or builtin element type. Types the interpreter
// cannot run keep their MLIR spelling.
func (c *bcConverter) elemType(op *mlirbc.Operation, t mlirbc.Type) TensorType {
	switch t := t.(type) {
	case *mlirbc.VHLOType:
		if e, ok := ParseElemType(t.Name); ok {
			return TensorType{Elem: e}
		}
		if t.Name == "token" {
			return TensorType{raw: "!stablehlo.token"}
		}
		return TensorType{raw: t.Name}
	case *mlirbc.IntegerType:
		name := t.String()
		if t.Signedness == mlirbc.Signed {
			name = "i" + name[2:] // si32 is StableHLO's i32
		}
		if e, ok := ParseElemType(name); ok {
			return TensorType{Elem: e}
		}
		return TensorType{raw: t.String()}
	case *mlirbc.FloatType:
		if e, ok := ParseElemType(t.Name); ok {
			return TensorType{Elem: e}
		}
		return TensorType{raw: t.Name}
	case *mlirbc.VHLOComplexType:
		return complexType(c.elemType(op, t.Elem))
	case *mlirbc.ComplexType:
		return complexType(c.elemType(op, t.Elem))
	}
	return c.tensorType(op, t)
}

// complexType is the element type complex<part>: C64 or C128, and for
// other parts (complex<f16>, complex<i32>) its spelling.
func complexType(part TensorType) TensorType {
	if part.raw == "" {
		switch part.Elem {
		case F32:
			return TensorType{Elem: C64}
		case F64:
			return TensorType{Elem: C128}
		}
		return TensorType{raw: "complex<" + part.Elem.String() + ">"}
	}
	return TensorType{raw: "complex<" + part.raw + ">"}
}

// tensorType converts a value type: a ranked tensor of static shape, or a
// type the interpreter cannot run (token, tuple, ...) by its spelling.
func (c *bcConverter) tensorType(op *mlirbc.Operation, t mlirbc.Type) TensorType {
	var shape []int64
	var elem mlirbc.Type
	switch t := t.(type) {
	case *mlirbc.VHLOTensorType:
		shape, elem = t.Shape, t.Elem
	case *mlirbc.RankedTensorType:
		shape, elem = t.Shape, t.Elem
	case *mlirbc.VHLOTupleType:
		parts := make([]string, len(t.Types))
		for i, e := range t.Types {
			parts[i] = c.tensorType(op, e).String()
		}
		return TensorType{raw: "tuple<" + strings.Join(parts, ", ") + ">"}
	case *mlirbc.VHLOType:
		if t.Name == "token" {
			return TensorType{raw: "!stablehlo.token"}
		}
		return TensorType{raw: t.String()}
	default:
		return TensorType{raw: t.String()}
	}
	for _, d := range shape {
		if d < 0 {
			c.fail(op, Unimplemented, "dynamic dimensions are not supported")
		}
	}
	e := c.elemType(op, elem)
	if e.raw != "" { // an element type with no ElemType, kept by its spelling
		var b strings.Builder
		b.WriteString("tensor<")
		for _, d := range shape {
			b.WriteString(strconv.FormatInt(d, 10))
			b.WriteByte('x')
		}
		b.WriteString(e.raw)
		b.WriteByte('>')
		return TensorType{Shape: shape, raw: b.String()}
	}
	return TensorType{Elem: e.Elem, Shape: shape}
}

// convertAttr converts an attribute value by its kind.
func (c *bcConverter) convertAttr(op *mlirbc.Operation, a mlirbc.Attribute) *Attr {
	switch a := a.(type) {
	case *mlirbc.VHLOString:
		return &Attr{Kind: AttrString, Str: a.Value}
	case *mlirbc.StringAttr:
		return &Attr{Kind: AttrString, Str: a.Value}
	case *mlirbc.VHLOBool:
		return &Attr{Kind: AttrBool, Bool: a.Value}
	case *mlirbc.VHLOInteger:
		return &Attr{Kind: AttrInt, Int: a.Int64(), Type: c.elemType(op, a.Type)}
	case *mlirbc.IntegerAttr:
		if a.Width == 1 {
			return &Attr{Kind: AttrBool, Bool: a.Uint64() != 0}
		}
		v := a.Int64()
		if it, ok := a.Type.(*mlirbc.IntegerType); ok && it.Signedness == mlirbc.Unsigned {
			v = int64(a.Uint64())
		}
		return &Attr{Kind: AttrInt, Int: v, Type: c.elemType(op, a.Type)}
	case *mlirbc.VHLOFloat:
		return &Attr{Kind: AttrFloat, Float: a.Float64(), Type: c.elemType(op, a.Type)}
	case *mlirbc.FloatAttr:
		return &Attr{Kind: AttrFloat, Float: a.Float64(), Type: c.elemType(op, a.Type)}
	case *mlirbc.UnitAttr:
		return &Attr{Kind: AttrUnit}
	case *mlirbc.VHLOTensor: // copied: the module does not retain its source
		return &Attr{Kind: AttrDense, Type: c.tensorType(op, a.Type), denseHex: bytes.Clone(a.Data)}
	case *mlirbc.DenseElementsAttr:
		return &Attr{Kind: AttrDense, Type: c.tensorType(op, a.Type), denseHex: bytes.Clone(a.Data)}
	case *mlirbc.DenseResourceElementsAttr:
		if a.Resource == nil || a.Resource.Kind != mlirbc.ResourceBlob || a.Resource.Blob == nil {
			c.fail(op, Unimplemented, "dense_resource constant without its data")
		}
		return &Attr{Kind: AttrDense, Type: c.tensorType(op, a.Type), denseHex: bytes.Clone(a.Resource.Blob)}
	case *mlirbc.DenseArrayAttr:
		return c.denseArray(op, a)
	case *mlirbc.VHLOArray:
		l := &Attr{Kind: AttrList, List: make([]*Attr, len(a.Elems))}
		for i, e := range a.Elems {
			l.List[i] = c.convertAttr(op, e)
		}
		return l
	case *mlirbc.ArrayAttr:
		l := &Attr{Kind: AttrList, List: make([]*Attr, len(a.Elems))}
		for i, e := range a.Elems {
			l.List[i] = c.convertAttr(op, e)
		}
		return l
	case *mlirbc.VHLODict:
		d := &Attr{Kind: AttrDict, Dict: make(map[string]*Attr, len(a.Entries))}
		for _, e := range a.Entries {
			key, ok := e.Key.(*mlirbc.VHLOString)
			if !ok {
				c.fail(op, InvalidArgument, "dictionary key %s is not a string", e.Key)
			}
			d.Dict[key.Value] = c.convertAttr(op, e.Value)
		}
		return d
	case *mlirbc.DictAttr:
		d := &Attr{Kind: AttrDict, Dict: make(map[string]*Attr, len(a.Entries))}
		for _, e := range a.Entries {
			d.Dict[e.Name] = c.convertAttr(op, e.Value)
		}
		return d
	case *mlirbc.VHLOTypeAttr:
		return &Attr{Kind: AttrType, Type: c.tensorType(op, a.Type)}
	case *mlirbc.TypeAttr:
		return &Attr{Kind: AttrType, Type: c.tensorType(op, a.Type)}
	case *mlirbc.SymbolRefAttr:
		return &Attr{Kind: AttrSymbol, Str: a.Root}
	case *mlirbc.VHLOEnum:
		key := a.Kind + " " + a.Name
		e := c.enums[key]
		if e == nil {
			e = enumAttr(a.Kind, a.Name) // immutable, so ops share it
			c.enums[key] = e
		}
		return e
	case *mlirbc.VHLOOutputOperandAlias:
		return dialectAttr("output_operand_alias", map[string]*Attr{"output_tuple_indices": intListAttr(a.OutputTupleIndices),
			"operand_index": {Kind: AttrInt, Int: a.OperandIndex}, "operand_tuple_indices": intListAttr(a.OperandTupleIndices)})
	case *mlirbc.VHLOReplicaGroupMeshAxes:
		return dialectAttr("replica_group_mesh_axes", map[string]*Attr{"mesh": c.symbol(op, a.Mesh), "axes": c.convertAttr(op, a.Axes)})
	case *mlirbc.VHLOAxisRef:
		fields := map[string]*Attr{"name": c.convertAttr(op, a.Name)}
		if a.SubAxis != nil {
			fields["sub_axis_info"] = c.convertAttr(op, a.SubAxis)
		}
		return dialectAttr("axis_ref", fields)
	case *mlirbc.VHLOSubAxisInfo:
		return dialectAttr("sub_axis_info", map[string]*Attr{"pre_size": {Kind: AttrInt, Int: a.PreSize}, "size": {Kind: AttrInt, Int: a.Size}})
	case *mlirbc.VHLOMeshAxis:
		return dialectAttr("mesh_axis", map[string]*Attr{"name": c.convertAttr(op, a.Name), "size": {Kind: AttrInt, Int: a.Size}})
	case *mlirbc.VHLOMesh:
		fields := map[string]*Attr{"axes": c.convertAttr(op, a.Axes)}
		if a.DeviceIDs != nil {
			fields["device_ids"] = c.convertAttr(op, a.DeviceIDs)
		}
		return dialectAttr("mesh", fields)
	}
	// Shardy attributes, attributes stored as text and anything else with a
	// textual form the text parser reads.
	return c.textAttr(op, a.String())
}

// dialectAttr builds #stablehlo.kind<field = value, ...> as the text parser
// reads it.
func dialectAttr(kind string, fields map[string]*Attr) *Attr {
	return &Attr{Kind: AttrDialect, Str: "stablehlo." + kind, Dict: fields}
}

// symbol converts a VHLO string naming a symbol.
func (c *bcConverter) symbol(op *mlirbc.Operation, a mlirbc.Attribute) *Attr {
	s, ok := a.(*mlirbc.VHLOString)
	if !ok {
		c.fail(op, InvalidArgument, "%s does not name a symbol", a)
	}
	return &Attr{Kind: AttrSymbol, Str: s.Value}
}

// enumAttr builds #stablehlo<kind NAME>, as the text parser reads it.
func enumAttr(kind, name string) *Attr {
	return &Attr{Kind: AttrDialect, Str: "stablehlo", Dict: map[string]*Attr{kind: {Kind: AttrEnum, Str: name}},
		Raw: "#stablehlo<" + kind + " " + name + ">"}
}

func (c *bcConverter) denseArray(op *mlirbc.Operation, a *mlirbc.DenseArrayAttr) *Attr {
	elem := c.elemType(op, a.ElemType)
	vals, ok := a.Int64s()
	if !ok { // float arrays: no op the interpreter runs reads one
		return &Attr{Kind: AttrDialect, Raw: a.String()}
	}
	l := &Attr{Kind: AttrList, Type: elem, List: make([]*Attr, len(vals))}
	for i, v := range vals {
		if elem.Elem == Bool {
			l.List[i] = &Attr{Kind: AttrBool, Bool: v != 0}
		} else {
			l.List[i] = &Attr{Kind: AttrInt, Int: v}
		}
	}
	return l
}

// textAttr parses an attribute's MLIR text with the text parser; text it
// cannot read is kept as is, like the bodies of dialect attributes it does
// not know.
func (c *bcConverter) textAttr(op *mlirbc.Operation, text string) *Attr {
	a, err := parseAttrText(text)
	if err != nil {
		return &Attr{Kind: AttrDialect, Raw: text}
	}
	return a
}

// parseAttrText parses one attribute value written in MLIR syntax.
func parseAttrText(text string) (a *Attr, err error) {
	src := []byte(text)
	p := &parser{lex: lexer{src: src}, lines: newLineIndex(src), meshes: map[string]string{}}
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(*parseError)
			if !ok {
				panic(r)
			}
			a, err = nil, invalidf("%s", pe.msg)
		}
	}()
	p.advance()
	a = p.parseAttrValue()
	if p.tok.kind != tokEOF {
		p.fail("unexpected %s after the attribute", describe(p.tok))
	}
	return a, nil
}

// intsOf reads a VHLO integer tensor attribute (dimension lists).
func (c *bcConverter) intsOf(op *mlirbc.Operation, a mlirbc.Attribute, name string) []int64 {
	switch a := a.(type) {
	case *mlirbc.VHLOTensor:
		if v, ok := a.Int64s(); ok {
			return v
		}
	case *mlirbc.VHLOArray:
		out := make([]int64, 0, len(a.Elems))
		for _, e := range a.Elems {
			v, ok := e.(*mlirbc.VHLOInteger)
			if !ok {
				c.fail(op, InvalidArgument, "%s is not a list of integers", name)
			}
			out = append(out, v.Int64())
		}
		return out
	}
	c.fail(op, InvalidArgument, "%s is not a list of integers", name)
	return nil
}
