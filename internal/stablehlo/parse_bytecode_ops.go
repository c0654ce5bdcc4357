package stablehlo

import (
	"strconv"
	"strings"

	"github.com/openpathways/pathways/internal/mlirbc"
)

// VHLO ops become StableHLO ops as StableHLO's own VHLO-to-StableHLO
// legalization does it: attributes VHLO spells out at their default values
// are dropped, flattened dimension numbers are grouped again, some
// attributes become array<i64: ...>, and callees become symbols. An older op
// version (gather_v1, dot_general_v1, ...) lacks only attributes that the
// newer one has at their defaults, so it converts the same way.

// vhloOpName strips the dialect and version: "vhlo.gather_v2" is "gather".
func vhloOpName(name string) string {
	base := strings.TrimPrefix(name, "vhlo.")
	if i := strings.LastIndex(base, "_v"); i > 0 {
		if _, err := strconv.Atoi(base[i+2:]); err == nil {
			return base[:i]
		}
	}
	return base
}

// vhloArrayAttrs are the tensor attributes StableHLO keeps as array<i64>
// (or array<i1> for window_reversal), by op.
var vhloArrayAttrs = map[string][]string{
	"fft":                      {"fft_length"},
	"broadcast":                {"broadcast_sizes"},
	"dynamic_slice":            {"slice_sizes"},
	"reverse":                  {"dimensions"},
	"transpose":                {"permutation"},
	"pad":                      {"edge_padding_low", "edge_padding_high", "interior_padding"},
	"slice":                    {"start_indices", "limit_indices", "strides"},
	"broadcast_in_dim":         {"broadcast_dimensions"},
	"dynamic_broadcast_in_dim": {"broadcast_dimensions", "known_expanding_dimensions", "known_nonexpanding_dimensions"},
	"select_and_scatter":       {"window_dimensions", "window_strides"},
	"reduce_window":            {"window_dimensions", "window_strides", "base_dilations", "window_dilations"},
	"map":                      {"dimensions"},
	"reduce":                   {"dimensions"},
	"gather":                   {"slice_sizes"},
	"convolution":              {"lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"},
	"dynamic_conv":             {"lhs_dilation", "rhs_dilation", "window_strides", "window_reversal"},
}

// vhloProps are an op's properties; conversions take them by name, and
// what is left converts by kind. Few ops have more than a handful, so a
// slice beats a map.
type vhloProps struct{ list []mlirbc.NamedAttr }

func (p *vhloProps) get(name string) mlirbc.Attribute {
	for _, a := range p.list {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

func (p *vhloProps) del(name string) {
	for i, a := range p.list {
		if a.Name == name {
			p.list[i].Value = nil
		}
	}
}

func (p *vhloProps) clear() { p.list = p.list[:0] }

// convertOp sets out's name, attributes and callee from op.
func (c *bcConverter) convertOp(op *mlirbc.Operation, out *operation) {
	c.props.list = append(c.props.list[:0], op.Props...)
	props := &c.props
	if !strings.HasPrefix(op.Name, "vhlo.") {
		out.Name = op.Name
		for _, a := range props.list {
			out.attrs[a.Name] = c.convertAttr(op, a.Value)
		}
	} else {
		base := vhloOpName(op.Name)
		out.Name = "stablehlo." + base
		c.removeDefaults(op, base, props)
		if special := vhloSpecialOps[base]; special != nil {
			special(c, op, out, props)
		}
		for _, name := range vhloArrayAttrs[base] {
			if t, ok := props.get(name).(*mlirbc.VHLOTensor); ok {
				out.attrs[name] = c.arrayOf(op, t)
				props.del(name)
			}
		}
		for _, a := range props.list {
			if a.Value != nil {
				out.attrs[a.Name] = c.convertAttr(op, a.Value)
			}
		}
	}
	for _, a := range op.Attrs {
		out.attrs[a.Name] = c.convertAttr(op, a.Value)
	}
}

// removeDefaults drops the properties that hold their StableHLO default.
func (c *bcConverter) removeDefaults(op *mlirbc.Operation, base string, props *vhloProps) {
	drop := func(name string, isDefault bool) {
		if isDefault {
			props.del(name)
		}
	}
	isInt := func(name string, v int64) bool {
		a, ok := props.get(name).(*mlirbc.VHLOInteger)
		return ok && a.Int64() == v
	}
	isBool := func(name string, v bool) bool {
		a, ok := props.get(name).(*mlirbc.VHLOBool)
		return ok && a.Value == v
	}
	isEmpty := func(name string) bool {
		switch a := props.get(name).(type) {
		case *mlirbc.VHLOArray:
			return len(a.Elems) == 0
		case *mlirbc.VHLODict:
			return len(a.Entries) == 0
		case *mlirbc.VHLOString:
			return a.Value == ""
		case *mlirbc.VHLOTensor:
			return len(a.Data) == 0
		}
		return false
	}
	isEnum := func(name, value string) bool {
		a, ok := props.get(name).(*mlirbc.VHLOEnum)
		return ok && a.Name == value
	}
	isSplat := func(name string, v int64) bool {
		t, ok := props.get(name).(*mlirbc.VHLOTensor)
		if !ok {
			return false
		}
		vals, ok := t.Int64s()
		if !ok || len(vals) == 0 {
			return false
		}
		for _, x := range vals {
			if x != v {
				return false
			}
		}
		return true
	}
	allDefaultPrecision := func() bool {
		a, ok := props.get("precision_config").(*mlirbc.VHLOArray)
		if !ok {
			return false
		}
		for _, e := range a.Elems {
			if p, ok := e.(*mlirbc.VHLOEnum); !ok || p.Name != "DEFAULT" {
				return false
			}
		}
		return true
	}
	switch base {
	case "all_gather", "all_reduce", "reduce_scatter", "collective_reduce":
		drop("channel_id", isInt("channel_id", 0))
		drop("use_global_device_ids", isBool("use_global_device_ids", false))
		drop("has_dynamic_root", isBool("has_dynamic_root", false))
	case "all_to_all", "collective_permute", "collective_broadcast":
		drop("channel_id", isInt("channel_id", 0))
		drop("has_dynamic_root", isBool("has_dynamic_root", false))
	case "cholesky":
		drop("lower", isBool("lower", false))
	case "compare":
		drop("compare_type", isEnum("compare_type", "NOTYPE"))
	case "composite":
		drop("version", isInt("version", 0))
		drop("composite_attributes", isEmpty("composite_attributes"))
	case "convolution", "dynamic_conv":
		drop("window_strides", isSplat("window_strides", 1))
		if base == "convolution" {
			drop("padding", isSplat("padding", 0))
		}
		drop("lhs_dilation", isSplat("lhs_dilation", 1))
		drop("rhs_dilation", isSplat("rhs_dilation", 1))
		drop("window_reversal", isSplat("window_reversal", 0))
		drop("precision_config", allDefaultPrecision())
	case "custom_call":
		drop("has_side_effect", isBool("has_side_effect", false))
		drop("backend_config", isEmpty("backend_config"))
		drop("api_version", isEnum("api_version", "API_VERSION_ORIGINAL"))
		drop("called_computations", isEmpty("called_computations"))
		if isEmpty("operand_layouts") && isEmpty("result_layouts") {
			props.del("operand_layouts")
			props.del("result_layouts")
		}
		drop("output_operand_aliases", isEmpty("output_operand_aliases"))
		drop("result_tilings", isEmpty("result_tilings"))
	case "dot_general", "dot":
		drop("precision_config", allDefaultPrecision())
	case "dynamic_broadcast_in_dim":
		drop("known_expanding_dimensions", isEmpty("known_expanding_dimensions"))
		drop("known_nonexpanding_dimensions", isEmpty("known_nonexpanding_dimensions"))
	case "gather", "dynamic_gather":
		drop("indices_are_sorted", isBool("indices_are_sorted", false))
	case "infeed":
		drop("infeed_config", isEmpty("infeed_config"))
		drop("layout", isEmpty("layout"))
	case "outfeed":
		drop("outfeed_config", isEmpty("outfeed_config"))
	case "send", "recv":
		drop("is_host_transfer", isBool("is_host_transfer", false))
		drop("source_target_pairs", isEmpty("source_target_pairs"))
	case "reduce_window":
		drop("window_strides", isSplat("window_strides", 1))
		drop("base_dilations", isSplat("base_dilations", 1))
		drop("window_dilations", isSplat("window_dilations", 1))
		drop("padding", isSplat("padding", 0))
	case "scatter":
		drop("indices_are_sorted", isBool("indices_are_sorted", false))
		drop("unique_indices", isBool("unique_indices", false))
	case "select_and_scatter":
		drop("window_strides", isSplat("window_strides", 1))
		drop("padding", isSplat("padding", 0))
	case "sort":
		drop("dimension", isInt("dimension", -1))
		drop("is_stable", isBool("is_stable", false))
	}
	if a, ok := props.get("result_accuracy").(*mlirbc.VHLOResultAccuracy); ok && a.Atol == 0 && a.Rtol == 0 && a.Ulps == 0 {
		if m, ok := a.Mode.(*mlirbc.VHLOEnum); ok && m.Name == "DEFAULT" {
			props.del("result_accuracy")
		}
	}
}

// arrayOf converts a VHLO integer or boolean tensor to array<i64: ...>
// (array<i1: ...>), as the text parser reads that syntax.
func (c *bcConverter) arrayOf(op *mlirbc.Operation, t *mlirbc.VHLOTensor) *Attr {
	vals, ok := t.Int64s()
	if !ok {
		c.fail(op, InvalidArgument, "%s is not a list of integers", t)
	}
	elem := c.tensorType(op, t.Type).Elem
	l := &Attr{Kind: AttrList, Type: TensorType{Elem: elem}, List: make([]*Attr, len(vals))}
	items := make([]Attr, len(vals))
	for i, v := range vals {
		if elem == Bool {
			items[i] = Attr{Kind: AttrBool, Bool: v != 0}
		} else {
			items[i] = Attr{Kind: AttrInt, Int: v}
		}
		l.List[i] = &items[i]
	}
	return l
}

type opConverter func(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps)

// vhloSpecialOps convert the ops whose StableHLO attributes are not one VHLO
// property each.
var vhloSpecialOps = map[string]opConverter{
	"gather":               convertGather,
	"dynamic_gather":       convertGather,
	"scatter":              convertScatter,
	"dot_general":          convertDotGeneral,
	"convolution":          convertConvolution,
	"dynamic_conv":         convertConvolution,
	"custom_call":          convertCustomCall,
	"call":                 convertCall,
	"composite":            convertComposite,
	"all_gather":           convertCollective,
	"all_reduce":           convertCollective,
	"all_to_all":           convertCollective,
	"collective_permute":   convertCollective,
	"reduce_scatter":       convertCollective,
	"collective_broadcast": convertCollective,
	"collective_reduce":    convertCollective,
	"send":                 convertChannel,
	"recv":                 convertChannel,
}

// group moves the named properties into #stablehlo.<kind><...>, leaving out
// empty lists and zero integers as StableHLO prints it.
func (c *bcConverter) group(op *mlirbc.Operation, props *vhloProps, kind string, lists []string, ints ...string) *Attr {
	d := &Attr{Kind: AttrDialect, Str: "stablehlo." + kind, Dict: map[string]*Attr{}}
	var raw []string
	for _, name := range lists {
		a := props.get(name)
		if a == nil {
			continue
		}
		props.del(name)
		if v := c.intsOf(op, a, name); len(v) > 0 {
			d.Dict[name] = intListAttr(v)
			raw = append(raw, name+" = ["+joinIntsComma(v)+"]")
		}
	}
	for _, name := range ints {
		a := props.get(name)
		if a == nil {
			continue
		}
		props.del(name)
		v, ok := a.(*mlirbc.VHLOInteger)
		if !ok {
			c.fail(op, InvalidArgument, "%s is not an integer", name)
		}
		if v.Int64() != 0 { // index_vector_dim = 0 is not printed either
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

func convertGather(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	out.attrs["dimension_numbers"] = c.group(op, props, "gather",
		[]string{"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map"},
		"index_vector_dim")
}

func convertScatter(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	out.attrs["scatter_dimension_numbers"] = c.group(op, props, "scatter",
		[]string{"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
		"index_vector_dim")
}

func convertDotGeneral(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	out.attrs["dot_dimension_numbers"] = c.group(op, props, "dot",
		[]string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"})
	// dot_general_v2's algorithm: none_v1 component counts mean there is none.
	fields := []string{"lhs_precision_type", "rhs_precision_type", "accumulation_type",
		"lhs_component_count", "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"}
	if t, ok := props.get("lhs_component_count").(*mlirbc.VHLOTypeAttr); ok {
		if v, ok := t.Type.(*mlirbc.VHLOType); ok && v.Name == "none" {
			for _, name := range fields {
				props.del(name)
			}
			return
		}
	}
	if props.get("lhs_precision_type") == nil {
		return // dot_general_v1
	}
	alg := &Attr{Kind: AttrDialect, Str: "stablehlo.dot_algorithm", Dict: map[string]*Attr{}}
	for _, name := range fields {
		if a := props.get(name); a != nil {
			alg.Dict[name] = c.convertAttr(op, a)
			props.del(name)
		}
	}
	out.attrs["algorithm"] = alg
}

func convertConvolution(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	one := func(name string) int64 {
		v, ok := props.get(name).(*mlirbc.VHLOInteger)
		if !ok {
			c.fail(op, InvalidArgument, "missing %s", name)
		}
		props.del(name)
		return v.Int64()
	}
	list := func(name string) []int64 {
		a := props.get(name)
		if a == nil {
			c.fail(op, InvalidArgument, "missing %s", name)
		}
		props.del(name)
		return c.intsOf(op, a, name)
	}
	// Printed as in StableHLO: [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f].
	layout := func(batch, feature int64, spatial []int64, b, f string) string {
		dims := make([]string, len(spatial)+2)
		place := func(d int64, s string) {
			if d < 0 || d >= int64(len(dims)) || dims[d] != "" {
				c.fail(op, InvalidArgument, "convolution dimension numbers are not a permutation")
			}
			dims[d] = s
		}
		place(batch, b)
		place(feature, f)
		for i, d := range spatial {
			place(d, strconv.Itoa(i))
		}
		return "[" + strings.Join(dims, ", ") + "]"
	}
	in := layout(one("input_batch_dimension"), one("input_feature_dimension"), list("input_spatial_dimensions"), "b", "f")
	kernel := layout(one("kernel_input_feature_dimension"), one("kernel_output_feature_dimension"), list("kernel_spatial_dimensions"), "i", "o")
	output := layout(one("output_batch_dimension"), one("output_feature_dimension"), list("output_spatial_dimensions"), "b", "f")
	out.attrs["dimension_numbers"] = &Attr{Kind: AttrDialect, Str: "stablehlo.conv", Raw: "#stablehlo.conv<" + in + "x" + kernel + "->" + output + ">"}
}

func convertCustomCall(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	if t, ok := props.get("call_target_name").(*mlirbc.VHLOString); ok {
		out.callee = t.Value
	}
	if v, ok := props.get("api_version").(*mlirbc.VHLOEnum); ok {
		props.del("api_version")
		out.attrs["api_version"] = &Attr{Kind: AttrInt, Int: int64(v.Value), Type: TensorType{Elem: I32}}
	}
	if a, ok := props.get("called_computations").(*mlirbc.VHLOArray); ok {
		props.del("called_computations")
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

func convertCall(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	out.Name = "func.call"
	callee, ok := props.get("callee").(*mlirbc.VHLOString)
	if !ok {
		c.fail(op, InvalidArgument, "missing callee")
	}
	props.del("callee")
	out.callee = callee.Value
	out.attrs["callee"] = &Attr{Kind: AttrSymbol, Str: callee.Value}
}

// convertComposite keeps a composite, which the interpreter runs by calling
// its decomposition, except that a CHLO op JAX serialized as one
// (chlo.erf, chlo.top_k, ...) becomes that op again, as in the text form,
// when the interpreter implements it.
func convertComposite(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	name, ok1 := props.get("name").(*mlirbc.VHLOString)
	decomposition, ok2 := props.get("decomposition").(*mlirbc.VHLOString)
	if !ok1 || !ok2 {
		c.fail(op, InvalidArgument, "needs name and decomposition")
	}
	if strings.HasPrefix(name.Value, "chlo.") && lookupEval(&operation{Name: name.Value}) != nil {
		out.Name = name.Value
		if d, ok := props.get("composite_attributes").(*mlirbc.VHLODict); ok {
			for k, v := range c.convertAttr(op, d).Dict {
				out.attrs[k] = v
			}
		}
		props.clear()
		return
	}
	props.del("decomposition")
	out.callee = decomposition.Value
	out.attrs["decomposition"] = &Attr{Kind: AttrSymbol, Str: decomposition.Value}
}

// convertCollective turns channel_id into a channel handle and
// use_global_device_ids into a unit attribute.
func convertCollective(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	if id, ok := props.get("channel_id").(*mlirbc.VHLOInteger); ok {
		props.del("channel_id")
		out.attrs["channel_handle"] = channelHandle(id.Int64(), 0)
	}
	for _, name := range []string{"use_global_device_ids", "has_dynamic_root"} {
		if b, ok := props.get(name).(*mlirbc.VHLOBool); ok {
			props.del(name)
			if b.Value {
				out.attrs[name] = &Attr{Kind: AttrUnit}
			}
		}
	}
}

// convertChannel makes send's and recv's channel handle.
func convertChannel(c *bcConverter, op *mlirbc.Operation, out *operation, props *vhloProps) {
	id, ok1 := props.get("channel_id").(*mlirbc.VHLOInteger)
	typ, ok2 := props.get("channel_type").(*mlirbc.VHLOInteger)
	if !ok1 || !ok2 {
		c.fail(op, InvalidArgument, "needs channel_id and channel_type")
	}
	props.del("channel_id")
	props.del("channel_type")
	out.attrs["channel_handle"] = channelHandle(id.Int64(), typ.Int64())
}

func channelHandle(handle, typ int64) *Attr {
	return &Attr{Kind: AttrDialect, Str: "stablehlo.channel_handle",
		Dict: map[string]*Attr{"handle": {Kind: AttrInt, Int: handle}, "type": {Kind: AttrInt, Int: typ}},
		Raw:  "#stablehlo.channel_handle<handle = " + strconv.FormatInt(handle, 10) + ", type = " + strconv.FormatInt(typ, 10) + ">"}
}
