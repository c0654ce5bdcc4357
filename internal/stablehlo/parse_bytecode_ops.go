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

// vhloProps is an op's properties by name; conversions consume them.
type vhloProps map[string]mlirbc.Attribute

// convertOp sets out's name, attributes and callee from op.
func (c *bcConverter) convertOp(op *mlirbc.Operation, out *operation) {
	props := vhloProps{}
	for _, a := range op.Props {
		props[a.Name] = a.Value
	}
	if !strings.HasPrefix(op.Name, "vhlo.") {
		out.Name = op.Name
		for name, a := range props {
			out.attrs[name] = c.convertAttr(op, a)
		}
	} else {
		base := vhloOpName(op.Name)
		out.Name = "stablehlo." + base
		c.removeDefaults(op, base, props)
		if special := vhloSpecialOps[base]; special != nil {
			special(c, op, out, props)
		}
		for _, name := range vhloArrayAttrs[base] {
			if t, ok := props[name].(*mlirbc.VHLOTensor); ok {
				out.attrs[name] = c.arrayOf(op, t)
				delete(props, name)
			}
		}
		for name, a := range props {
			out.attrs[name] = c.convertAttr(op, a)
		}
	}
	for _, a := range op.Attrs {
		out.attrs[a.Name] = c.convertAttr(op, a.Value)
	}
}

// removeDefaults drops the properties that hold their StableHLO default.
func (c *bcConverter) removeDefaults(op *mlirbc.Operation, base string, props vhloProps) {
	drop := func(name string, isDefault bool) {
		if isDefault {
			delete(props, name)
		}
	}
	isInt := func(name string, v int64) bool {
		a, ok := props[name].(*mlirbc.VHLOInteger)
		return ok && a.Int64() == v
	}
	isBool := func(name string, v bool) bool {
		a, ok := props[name].(*mlirbc.VHLOBool)
		return ok && a.Value == v
	}
	isEmpty := func(name string) bool {
		switch a := props[name].(type) {
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
		a, ok := props[name].(*mlirbc.VHLOEnum)
		return ok && a.Name == value
	}
	isSplat := func(name string, v int64) bool {
		t, ok := props[name].(*mlirbc.VHLOTensor)
		if !ok {
			return false
		}
		vals, err := denseArray(&Attr{Kind: AttrDense, denseHex: t.Data}, c.tensorType(op, t.Type))
		if err != nil || vals.size() == 0 {
			return false
		}
		for i := 0; i < vals.size(); i++ {
			if vals.intAt(i) != v {
				return false
			}
		}
		return true
	}
	allDefaultPrecision := func() bool {
		a, ok := props["precision_config"].(*mlirbc.VHLOArray)
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
			delete(props, "operand_layouts")
			delete(props, "result_layouts")
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
	if a, ok := props["result_accuracy"].(*mlirbc.VHLOResultAccuracy); ok && a.Atol == 0 && a.Rtol == 0 && a.Ulps == 0 {
		if m, ok := a.Mode.(*mlirbc.VHLOEnum); ok && m.Name == "DEFAULT" {
			delete(props, "result_accuracy")
		}
	}
}

// arrayOf converts a VHLO integer or boolean tensor to array<i64: ...>
// (array<i1: ...>), as the text parser reads that syntax.
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

type opConverter func(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps)

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
func (c *bcConverter) group(op *mlirbc.Operation, props vhloProps, kind string, lists []string, ints ...string) *Attr {
	d := &Attr{Kind: AttrDialect, Str: "stablehlo." + kind, Dict: map[string]*Attr{}}
	var raw []string
	for _, name := range lists {
		a, ok := props[name]
		if !ok {
			continue
		}
		delete(props, name)
		if v := c.intsOf(op, a, name); len(v) > 0 {
			d.Dict[name] = intListAttr(v)
			raw = append(raw, name+" = ["+joinIntsComma(v)+"]")
		}
	}
	for _, name := range ints {
		a, ok := props[name]
		if !ok {
			continue
		}
		delete(props, name)
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

func convertGather(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	out.attrs["dimension_numbers"] = c.group(op, props, "gather",
		[]string{"offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map"},
		"index_vector_dim")
}

func convertScatter(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	out.attrs["scatter_dimension_numbers"] = c.group(op, props, "scatter",
		[]string{"update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims"},
		"index_vector_dim")
}

func convertDotGeneral(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	out.attrs["dot_dimension_numbers"] = c.group(op, props, "dot",
		[]string{"lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"})
	// dot_general_v2's algorithm: none_v1 component counts mean there is none.
	fields := []string{"lhs_precision_type", "rhs_precision_type", "accumulation_type",
		"lhs_component_count", "rhs_component_count", "num_primitive_operations", "allow_imprecise_accumulation"}
	if t, ok := props["lhs_component_count"].(*mlirbc.VHLOTypeAttr); ok {
		if v, ok := t.Type.(*mlirbc.VHLOType); ok && v.Name == "none" {
			for _, name := range fields {
				delete(props, name)
			}
			return
		}
	}
	if _, ok := props["lhs_precision_type"]; !ok {
		return // dot_general_v1
	}
	alg := &Attr{Kind: AttrDialect, Str: "stablehlo.dot_algorithm", Dict: map[string]*Attr{}}
	for _, name := range fields {
		if a, ok := props[name]; ok {
			alg.Dict[name] = c.convertAttr(op, a)
			delete(props, name)
		}
	}
	out.attrs["algorithm"] = alg
}

func convertConvolution(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
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

func convertCustomCall(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	if t, ok := props["call_target_name"].(*mlirbc.VHLOString); ok {
		out.callee = t.Value
	}
	if v, ok := props["api_version"].(*mlirbc.VHLOEnum); ok {
		delete(props, "api_version")
		out.attrs["api_version"] = &Attr{Kind: AttrInt, Int: int64(v.Value), Type: TensorType{Elem: I32}}
	}
	if a, ok := props["called_computations"].(*mlirbc.VHLOArray); ok {
		delete(props, "called_computations")
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

func convertCall(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	out.Name = "func.call"
	callee, ok := props["callee"].(*mlirbc.VHLOString)
	if !ok {
		c.fail(op, InvalidArgument, "missing callee")
	}
	delete(props, "callee")
	out.callee = callee.Value
	out.attrs["callee"] = &Attr{Kind: AttrSymbol, Str: callee.Value}
}

// convertComposite keeps a composite, which the interpreter runs by calling
// its decomposition, except that a CHLO op JAX serialized as one
// (chlo.erf, chlo.top_k, ...) becomes that op again, as in the text form,
// when the interpreter implements it.
func convertComposite(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
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
		clear(props)
		return
	}
	delete(props, "decomposition")
	out.callee = decomposition.Value
	out.attrs["decomposition"] = &Attr{Kind: AttrSymbol, Str: decomposition.Value}
}

// convertCollective turns channel_id into a channel handle and
// use_global_device_ids into a unit attribute.
func convertCollective(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	if id, ok := props["channel_id"].(*mlirbc.VHLOInteger); ok {
		delete(props, "channel_id")
		out.attrs["channel_handle"] = channelHandle(id.Int64(), 0)
	}
	for _, name := range []string{"use_global_device_ids", "has_dynamic_root"} {
		if b, ok := props[name].(*mlirbc.VHLOBool); ok {
			delete(props, name)
			if b.Value {
				out.attrs[name] = &Attr{Kind: AttrUnit}
			}
		}
	}
}

// convertChannel makes send's and recv's channel handle.
func convertChannel(c *bcConverter, op *mlirbc.Operation, out *operation, props vhloProps) {
	id, ok1 := props["channel_id"].(*mlirbc.VHLOInteger)
	typ, ok2 := props["channel_type"].(*mlirbc.VHLOInteger)
	if !ok1 || !ok2 {
		c.fail(op, InvalidArgument, "needs channel_id and channel_type")
	}
	delete(props, "channel_id")
	delete(props, "channel_type")
	out.attrs["channel_handle"] = channelHandle(id.Int64(), typ.Int64())
}

func channelHandle(handle, typ int64) *Attr {
	return &Attr{Kind: AttrDialect, Str: "stablehlo.channel_handle",
		Dict: map[string]*Attr{"handle": {Kind: AttrInt, Int: handle}, "type": {Kind: AttrInt, Int: typ}},
		Raw:  "#stablehlo.channel_handle<handle = " + strconv.FormatInt(handle, 10) + ", type = " + strconv.FormatInt(typ, 10) + ">"}
}
