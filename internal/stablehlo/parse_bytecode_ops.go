package stablehlo

import (
	"strconv"
	"strings"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// arrayAttrs are the VHLO tensor attributes that StableHLO keeps as
// array<i64: ...> (or array<i1: ...>); other tensor attributes are
// dense<...> elements.
var arrayAttrs = map[string]bool{
	"broadcast_dimensions": true, "permutation": true, "dimensions": true,
	"start_indices": true, "limit_indices": true, "strides": true, "slice_sizes": true,
	"edge_padding_low": true, "edge_padding_high": true, "interior_padding": true,
	"window_dimensions": true, "window_strides": true, "base_dilations": true, "window_dilations": true,
	"lhs_dilation": true, "rhs_dilation": true, "window_reversal": true,
	"fft_length": true, "broadcast_sizes": true,
	"known_expanding_dimensions": true, "known_nonexpanding_dimensions": true,
}

// vhloOpName splits "vhlo.gather_v2" into "gather".
func vhloOpName(name string) string {
	base := strings.TrimPrefix(name, "vhlo.")
	if i := strings.LastIndex(base, "_v"); i > 0 {
		if _, err := strconv.Atoi(base[i+2:]); err == nil {
			return base[:i]
		}
	}
	return base
}

// convertOp sets out's name, attributes and callee from op.
func (c *bcConverter) convertOp(op *mlirbc.Operation, out *operation) {
	props := map[string]mlirbc.Attribute{}
	for _, a := range op.Props {
		props[a.Name] = a.Value
	}
	if strings.HasPrefix(op.Name, "vhlo.") {
		base := vhloOpName(op.Name)
		out.Name = "stablehlo." + base
		if special := vhloSpecialOps[base]; special != nil {
			special(c, op, out, props)
		}
		for name, a := range props {
			if _, done := out.attrs[name]; !done {
				c.setProp(op, out, name, a)
			}
		}
	} else {
		out.Name = op.Name
		for name, a := range props {
			out.attrs[name] = c.convertAttr(op, a)
		}
	}
	for _, a := range op.Attrs {
		out.attrs[a.Name] = c.convertAttr(op, a.Value)
	}
}

// setProp converts one VHLO property by its name and kind.
func (c *bcConverter) setProp(op *mlirbc.Operation, out *operation, name string, a mlirbc.Attribute) {
	switch v := a.(type) {
	case *mlirbc.VHLOTensor:
		if arrayAttrs[name] {
			out.attrs[name] = c.arrayOf(op, v)
			return
		}
	case *mlirbc.VHLOResultAccuracy:
		if v.Atol == 0 && v.Rtol == 0 && v.Ulps == 0 {
			if m, ok := v.Mode.(*mlirbc.VHLOEnum); ok && m.Name == "DEFAULT" {
				return // the default, which StableHLO does not print
			}
		}
	}
	out.attrs[name] = c.convertAttr(op, a)
}

// arrayOf converts a VHLO integer or boolean tensor to array<i64: ...>.
func (c *bcConverter) arrayOf(op *mlirbc.Operation, t *mlirbc.VHLOTensor) *Attr {
	tt := c.tensorType(op, t.Type)
	arr, err := denseArray(&Attr{Kind: AttrDense, denseHex: t.Data}, tt)
	if err != nil {
		c.fail(op, InvalidArgument, "%v", err)
	}
	l := &Attr{Kind: AttrList, Type: TensorType{Elem: tt.Elem}, List: make([]*Attr, arr.size())}
	for i := range l.List {
		if arr.b != nil {
			l.List[i] = &Attr{Kind: AttrBool, Bool: arr.b[i]}
		} else {
			l.List[i] = &Attr{Kind: AttrInt, Int: arr.intAt(i)}
		}
	}
	return l
}

type opConverter func(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute)

// vhloSpecialOps convert the ops whose StableHLO attributes differ from
// their VHLO properties: grouped dimension numbers, enums StableHLO
// spells differently, and symbol references VHLO keeps as strings.
var vhloSpecialOps = map[string]opConverter{
	"compare":        convertCompare,
	"gather":         convertGather,
	"dynamic_gather": convertGather,
	"scatter":        convertScatter,
	"dot_general":    convertDotGeneral,
	"convolution":    convertConvolution,
	"dynamic_conv":   convertConvolution,
	"custom_call":    convertCustomCall,
	"call":           convertCall,
	"composite":      convertComposite,
}

func convertCompare(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	if t, ok := props["compare_type"].(*mlirbc.VHLOEnum); ok && t.Name == "NOTYPE" {
		delete(props, "compare_type") // the default
	}
}

// group moves the named properties into #stablehlo.<kind><...>, leaving
// out empty lists as StableHLO's printer does.
func (c *bcConverter) group(op *mlirbc.Operation, props map[string]mlirbc.Attribute, kind string, lists []string, ints ...string) *Attr {
	d := &Attr{Kind: AttrDialect, Str: "stablehlo." + kind, Dict: map[string]*Attr{}}
	var raw []string
	for _, name := range lists {
		if a, ok := props[name]; ok {
			delete(props, name)
			if v := c.intsOf(op, a, name); len(v) > 0 {
				d.Dict[name] = intListAttr(v)
				raw = append(raw, name+" = ["+joinIntsComma(v)+"]")
			}
		}
	}
	for _, name := range ints {
		if a, ok := props[name]; ok {
			delete(props, name)
			v, ok := a.(*mlirbc.VHLOInteger)
			if !ok {
				c.fail(op, InvalidArgument, "%s is not an integer", name)
			}
			d.Dict[name] = &Attr{Kind: AttrInt, Int: v.Int64()}
			raw = append(raw, name+" = "+strconv.FormatInt(v.Int64(), 10))
		}
	}
	d.Raw = "#stablehlo." + kind + "<" + strings.Join(raw, ", ") + ">"
	return d
}

func joinIntsComma(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ", ")
}

func convertGather(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	out.attrs["dimension_numbers"] = c.group(op, props, "gather",
		[]string{"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map"},
		"index_vector_dim")
	if a, ok := props["slice_sizes"].(*mlirbc.VHLOTensor); ok {
		out.attrs["slice_sizes"] = c.arrayOf(op, a)
	}
}

func convertScatter(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	out.attrs["scatter_dimension_numbers"] = c.group(op, props, "scatter",
		[]string{"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
		"index_vector_dim")
}

func convertDotGeneral(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	out.attrs["dot_dimension_numbers"] = c.group(op, props, "dot",
		[]string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"})
	c.precisionConfig(op, out, props)
	// dot_general_v2's algorithm fields; none_v1 precision types mean "no
	// algorithm", which is all the interpreter runs.
	algorithm := []string{"lhs_precision_type", "rhs_precision_type", "accumulation_type",
		"lhs_component_count", "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"}
	if t, ok := props["lhs_precision_type"].(*mlirbc.VHLOTypeAttr); ok {
		if v, ok := t.Type.(*mlirbc.VHLOType); ok && v.Name == "none" {
			for _, name := range algorithm {
				delete(props, name)
			}
		}
	}
}

// precisionConfig converts precision_config, dropping it when empty.
func (c *bcConverter) precisionConfig(op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	if a, ok := props["precision_config"].(*mlirbc.VHLOArray); ok && len(a.Elems) == 0 {
		delete(props, "precision_config")
	}
}

func convertConvolution(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	one := func(name string) int64 {
		v, ok := props[name].(*mlirbc.VHLOInteger)
		if !ok {
			c.fail(op, InvalidArgument, "missing %s", name)
		}
		delete(props, name)
		return v.Int64()
	}
	list := func(name string) []int64 {
		a, ok := props[name]
		if !ok {
			c.fail(op, InvalidArgument, "missing %s", name)
		}
		delete(props, name)
		return c.intsOf(op, a, name)
	}
	// #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>
	layout := func(batch, feature int64, spatial []int64, b, f byte) string {
		dims := make([]string, len(spatial)+2)
		if batch < 0 || feature < 0 || batch >= int64(len(dims)) || feature >= int64(len(dims)) {
			c.fail(op, InvalidArgument, "convolution dimension numbers out of range")
		}
		dims[batch], dims[feature] = string(b), string(f)
		for i, d := range spatial {
			if d < 0 || d >= int64(len(dims)) || dims[d] != "" {
				c.fail(op, InvalidArgument, "convolution dimension numbers out of range")
			}
			dims[d] = strconv.Itoa(i)
		}
		for _, d := range dims {
			if d == "" {
				c.fail(op, InvalidArgument, "convolution dimension numbers leave a dimension out")
			}
		}
		return "[" + strings.Join(dims, ", ") + "]"
	}
	in := layout(one("input_batch_dimension"), one("input_feature_dimension"), list("input_spatial_dimensions"), 'b', 'f')
	kernel := layout(one("kernel_input_feature_dimension"), one("kernel_output_feature_dimension"), list("kernel_spatial_dimensions"), 'i', 'o')
	output := layout(one("output_batch_dimension"), one("output_feature_dimension"), list("output_spatial_dimensions"), 'b', 'f')
	out.attrs["dimension_numbers"] = &Attr{Kind: AttrDialect, Str: "stablehlo.conv", Raw: "#stablehlo.conv<" + in + "x" + kernel + "->" + output + ">"}
	c.precisionConfig(op, out, props)
}

func convertCustomCall(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	if t, ok := props["call_target_name"].(*mlirbc.VHLOString); ok {
		out.callee = t.Value
	}
	if v, ok := props["api_version"].(*mlirbc.VHLOEnum); ok {
		delete(props, "api_version")
		if v.Value != 1 { // API_VERSION_ORIGINAL is the default
			out.attrs["api_version"] = &Attr{Kind: AttrInt, Int: int64(v.Value), Type: TensorType{Elem: I32}}
		}
	}
	if v, ok := props["has_side_effect"].(*mlirbc.VHLOBool); ok && !v.Value {
		delete(props, "has_side_effect")
	}
	if a, ok := props["called_computations"].(*mlirbc.VHLOArray); ok {
		delete(props, "called_computations")
		if len(a.Elems) > 0 {
			l := &Attr{Kind: AttrList}
			for _, e := range a.Elems {
				s, ok := e.(*mlirbc.VHLOString)
				if !ok {
					c.fail(op, InvalidArgument, "called_computations must name functions")
				}
				l.List = append(l.List, &Attr{Kind: AttrSymbol, Str: s.Value})
			}
			out.attrs["called_computations"] = l
		}
	}
	for _, name := range []string{"operand_layouts", "result_layouts", "output_operand_aliases", "result_tilings"} {
		if a, ok := props[name].(*mlirbc.VHLOArray); ok && len(a.Elems) == 0 {
			delete(props, name)
		}
	}
}

func convertCall(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	out.Name = "func.call"
	callee, ok := props["callee"].(*mlirbc.VHLOString)
	if !ok {
		c.fail(op, InvalidArgument, "missing callee")
	}
	out.callee = callee.Value
	out.attrs["callee"] = &Attr{Kind: AttrSymbol, Str: callee.Value}
}

// convertComposite keeps a composite, which the interpreter runs by calling
// its decomposition, except that a CHLO op JAX wrapped in one (chlo.erf,
// chlo.top_k, ...) becomes that op again when the interpreter implements
// it, as in the text form.
func convertComposite(c *bcConverter, op *mlirbc.Operation, out *operation, props map[string]mlirbc.Attribute) {
	name, ok1 := props["name"].(*mlirbc.VHLOString)
	decomposition, ok2 := props["decomposition"].(*mlirbc.VHLOString)
	if !ok1 || !ok2 {
		c.fail(op, InvalidArgument, "needs name and decomposition")
	}
	if strings.HasPrefix(name.Value, "chlo.") && lookupEval(&operation{Name: name.Value}) != nil {
		out.Name = name.Value
		if d, ok := props["composite_attributes"].(*mlirbc.VHLODict); ok {
			for k, v := range c.convertAttr(op, d).Dict {
				out.attrs[k] = v
			}
		}
		for k := range props {
			delete(props, k)
		}
		return
	}
	out.callee = decomposition.Value
	out.attrs["decomposition"] = &Attr{Kind: AttrSymbol, Str: decomposition.Value}
	delete(props, "decomposition")
	if d, ok := props["composite_attributes"].(*mlirbc.VHLODict); ok && len(d.Entries) == 0 {
		delete(props, "composite_attributes")
	}
}
