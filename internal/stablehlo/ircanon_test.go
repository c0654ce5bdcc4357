package stablehlo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// canonModule describes a module independently of how it was written: the
// functions reachable from @main with their signatures, and for each the
// dataflow graph of its results, hashed. Two modules that compute the same
// values with the same ops and attributes describe equal, whatever their op
// order, constant placement and de-duplication, or pretty/generic spelling.
func canonModule(m *Module) map[string]string {
	out := map[string]string{"module": fmt.Sprintf("partitions=%d replicas=%d collectives=%v",
		m.numPartitions, m.numReplicas, m.collectives)}
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		f := m.funcs[name]
		if f == nil || seen[name] {
			return
		}
		seen[name] = true
		c := &canonizer{def: map[int]defSite{}, names: map[int]string{}, memo: map[int]string{}}
		var sig []string
		for i, v := range f.params {
			sig = append(sig, "param "+canonValue(v))
			if f.body != nil {
				c.names[f.body.args[i]] = "p" + strconv.Itoa(i)
			}
		}
		for _, v := range f.results {
			sig = append(sig, "result "+canonValue(v))
		}
		var rets []string
		if f.body != nil {
			c.index(f.body, 0)
			for _, s := range f.body.rets {
				rets = append(rets, c.value(s))
			}
		}
		out["@"+name] = fmt.Sprintf("public=%v %s -> %s", f.Public, strings.Join(sig, "; "), strings.Join(rets, ","))
		for _, callee := range c.callees {
			visit(callee)
		}
	}
	visit("main")
	return out
}

func canonValue(v Value) string {
	keys := make([]string, 0, len(v.Attrs))
	for k, a := range v.Attrs {
		if k == "mhlo.sharding" || k == "sdy.sharding" {
			continue // compared as Sharding
		}
		keys = append(keys, k+"="+canonAttr(a))
	}
	sort.Strings(keys)
	return fmt.Sprintf("%s sharding=%q donor=%v {%s}", v.Type, v.Sharding, v.DonorOrAlias, strings.Join(keys, ", "))
}

type defSite struct {
	op  *operation
	res int
}

type canonizer struct {
	def     map[int]defSite
	names   map[int]string // region arguments and parameters
	memo    map[int]string
	callees []string
}

// index records where each slot is defined; region arguments are named by
// nesting depth and position.
func (c *canonizer) index(r *region, depth int) {
	for _, op := range r.ops {
		for i, s := range op.results {
			c.def[s] = defSite{op, i}
		}
		for _, sub := range op.regions {
			for i, s := range sub.args {
				c.names[s] = "r" + strconv.Itoa(depth+1) + "." + strconv.Itoa(i) + ":" + sub.argTypes[i].String()
			}
			c.index(sub, depth+1)
		}
		if op.callee != "" && (op.Name == "func.call" || op.Name == "stablehlo.composite") {
			c.callees = append(c.callees, op.callee)
		}
	}
}

func (c *canonizer) value(s int) string {
	if n, ok := c.names[s]; ok {
		return n
	}
	if h, ok := c.memo[s]; ok {
		return h
	}
	d, ok := c.def[s]
	if !ok {
		return "undefined"
	}
	if d.op.fused != nil {
		return c.fusedValue(d)
	}
	return c.finish(s, d, c.opString(d.op))
}

// finish hashes an op's description into the key of its result d.res.
func (c *canonizer) finish(s int, d defSite, desc string) string {
	h := ""
	if debugCanon {
		h = "(" + desc + ")#" + strconv.Itoa(d.res)
	} else {
		sum := sha256.Sum256([]byte(desc))
		h = hex.EncodeToString(sum[:8]) + "#" + strconv.Itoa(d.res)
	}
	c.memo[s] = h
	return h
}

// fusedValue describes the outputs of an elementwise fusion as the ops it
// replaced, so that fusion (which depends on op order) does not matter.
func (c *canonizer) fusedValue(d defSite) string {
	p := d.op.fused
	steps := make([]string, len(p.steps))
	ref := func(r fusedRef) string {
		if r.ext >= 0 {
			return c.value(d.op.operands[r.ext])
		}
		return steps[r.val]
	}
	var out string
	for k, st := range p.steps {
		desc := p.ops[k].Name + "<>(" + ref(st.a) + ","
		if !st.unary && !st.splat {
			desc += ref(st.b) + ","
		}
		desc += ") " + p.typ.String()
		if debugCanon {
			steps[k] = "(" + desc + ")#0"
		} else {
			sum := sha256.Sum256([]byte(desc))
			steps[k] = hex.EncodeToString(sum[:8]) + "#0"
		}
		if st.output >= 0 {
			c.memo[d.op.results[st.output]] = steps[k]
			if st.output == d.res {
				out = steps[k]
			}
		}
	}
	return out
}

func (c *canonizer) opString(op *operation) string {
	d := defSite{op: op}
	var b strings.Builder
	b.WriteString(d.op.Name)
	b.WriteString(canonOpAttrs(d.op))
	if d.op.callee != "" {
		b.WriteString(" @" + d.op.callee)
	}
	b.WriteString("(")
	for _, o := range d.op.operands {
		b.WriteString(c.value(o) + ",")
	}
	b.WriteString(")")
	for _, r := range d.op.regions {
		b.WriteString("{")
		for _, t := range r.argTypes {
			b.WriteString(t.String() + ",")
		}
		b.WriteString("->")
		for _, s := range r.rets {
			b.WriteString(c.value(s) + ",")
		}
		b.WriteString("}")
	}
	for _, t := range d.op.resultTypes {
		b.WriteString(" " + t.String())
	}
	return b.String()
}

// prettyKeys maps the keywords of StableHLO's custom assembly to the
// attribute names of the generic form, by op.
var prettyKeys = map[string]map[string]string{
	"broadcast_in_dim":   {"dims": "broadcast_dimensions"},
	"transpose":          {"dims": "permutation"},
	"reverse":            {"dims": "dimensions"},
	"iota":               {"dim": "iota_dimension"},
	"concatenate":        {"dim": "dimension"},
	"get_dimension_size": {"dim": "dimension"},
	"dynamic_slice":      {"sizes": "slice_sizes"},
	"pad":                {"low": "edge_padding_low", "high": "edge_padding_high", "interior": "interior_padding"},
	"dot_general":        {"precision": "precision_config"},
	"dot":                {"precision": "precision_config"},
	"convolution":        {"dim_numbers": "dimension_numbers"},
	"rng_bit_generator":  {"algorithm": "rng_algorithm"},
}

// canonDefaults are the attribute values StableHLO treats as absent.
var canonDefaults = map[string]map[string]string{
	"compare":            {"compare_type": "NOTYPE"},
	"sort":               {"dimension": "-1", "is_stable": "false"},
	"gather":             {"indices_are_sorted": "false"},
	"scatter":            {"indices_are_sorted": "false", "unique_indices": "false"},
	"custom_call":        {"has_side_effect": "false", "backend_config": `""`, "api_version": "1"},
	"convolution":        {"feature_group_count": "1", "batch_group_count": "1"},
	"reduce_window":      {},
	"select_and_scatter": {},
	"chlo.top_k":         {"is_stable": "true"}, // jaxlib 0.12 spells it out in the composite
}

// canonOpAttrs prints op's attributes in one spelling: generic names,
// StableHLO's defaults left out, dimension numbers flattened.
func canonOpAttrs(op *operation) string {
	base := trimDialect(op.Name)
	attrs := map[string]string{}
	for k, a := range op.attrs {
		switch k {
		case "_positional": // compare EQ, %a, %b, FLOAT
			attrs["comparison_direction"] = a.List[0].Str
			if len(a.List) > 1 {
				attrs["compare_type"] = a.List[len(a.List)-1].Str
			}
			continue
		case "callee", "call_target_name", "decomposition", "sdy.sharding_rule":
			continue // the callee is compared as op.callee; sharding rules are partitioner hints
		case "dot_dimension_numbers", "scatter_dimension_numbers":
			for f, v := range a.Dict {
				attrs[f] = canonAttr(v)
			}
			continue
		case "dimension_numbers":
			if base == "gather" {
				for f, v := range a.Dict {
					attrs[f] = canonAttr(v)
				}
				continue
			}
		case "batching_dims", "contracting_dims": // [0] x [0]
			side := strings.TrimSuffix(k, "_dims")
			if side == "batching" {
				side = "batching_dimensions"
			} else {
				side = "contracting_dimensions"
			}
			attrs["lhs_"+side] = canonAttr(a.List[0])
			attrs["rhs_"+side] = canonAttr(a.List[1])
			continue
		case "window": // convolution's pretty window = {stride = [...], ...}
			for f, v := range a.Dict {
				name := map[string]string{"stride": "window_strides", "pad": "padding", "lhs_dilate": "lhs_dilation",
					"rhs_dilate": "rhs_dilation", "reverse": "window_reversal"}[f]
				attrs[name] = canonAttr(v)
			}
			continue
		case "format": // reduce_precision format = e5m10
			e, m, _ := parsePrecisionFormat(a.Str)
			attrs["exponent_bits"], attrs["mantissa_bits"] = strconv.FormatInt(e, 10), strconv.FormatInt(m, 10)
			continue
		}
		if alias, ok := prettyKeys[base][k]; ok {
			k = alias
		}
		attrs[k] = canonAttr(a)
	}
	for k, v := range attrs {
		if d, ok := canonDefaults[base][k]; ok && d == v {
			delete(attrs, k)
		}
		if v == "[]" && (strings.HasSuffix(k, "_dims") || strings.HasSuffix(k, "_dimensions")) {
			delete(attrs, k) // empty dimension lists are left out when printed
		}
		if allOf(v, "DEFAULT") && k == "precision_config" || allOf(v, "1") && (k == "window_strides" || k == "lhs_dilation" ||
			k == "rhs_dilation" || k == "base_dilations" || k == "window_dilations") ||
			allOf(v, "0") && k == "padding" || allOf(v, "false") && k == "window_reversal" {
			delete(attrs, k)
		}
	}
	keys := make([]string, 0, len(attrs))
	for k, v := range attrs {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return "<" + strings.Join(keys, ", ") + ">"
}

// allOf reports whether the list v (as canonAttr prints it) holds only x.
func allOf(v, x string) bool {
	v = strings.Trim(v, "[]")
	if v == "" {
		return true
	}
	for _, e := range strings.Split(strings.ReplaceAll(strings.ReplaceAll(v, "[", ""), "]", ""), ",") {
		if e != x {
			return false
		}
	}
	return true
}

// canonAttr prints an attribute value in one spelling.
func canonAttr(a *Attr) string {
	switch a.Kind {
	case AttrInt:
		return strconv.FormatInt(a.Int, 10)
	case AttrFloat:
		return strconv.FormatFloat(a.Float, 'g', -1, 64)
	case AttrBool:
		return strconv.FormatBool(a.Bool)
	case AttrString:
		if a.Raw != "" && a.Str == "" { // pretty convolution dim_numbers
			return canonConvDims(a.Raw)
		}
		return strconv.Quote(a.Str)
	case AttrUnit:
		return "unit"
	case AttrSymbol:
		return "@" + a.Str
	case AttrEnum:
		return a.Str
	case AttrType:
		return a.Type.String()
	case AttrList:
		if v, ok := flatInts(a); ok && len(v) > 0 {
			return "[" + joinInts(v) + "]" // [[0, 1], [2, 3]] and dense<...> alike
		}
		parts := make([]string, len(a.List))
		for i, e := range a.List {
			parts[i] = canonAttr(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case AttrDict:
		if allUnit(a.Dict) && len(a.Dict) > 0 { // {"x", "y"}: manual axes in pretty form
			return "axes" + fmt.Sprint(sortedKeys(a.Dict))
		}
		keys := make([]string, 0, len(a.Dict))
		for k, v := range a.Dict {
			keys = append(keys, k+"="+canonAttr(v))
		}
		sort.Strings(keys)
		return "{" + strings.Join(keys, ",") + "}"
	case AttrDense:
		arr, err := denseArray(a, a.Type)
		if err != nil {
			return "dense(" + err.Error() + ")"
		}
		parts := make([]string, arr.size())
		for i := range parts {
			switch {
			case arr.f32 != nil:
				parts[i] = strconv.FormatFloat(float64(arr.f32[i]), 'g', -1, 32)
			case arr.f64 != nil:
				parts[i] = strconv.FormatFloat(arr.f64[i], 'g', -1, 64)
			case arr.u != nil:
				parts[i] = strconv.FormatUint(arr.u[i], 10)
			default:
				parts[i] = strconv.FormatInt(arr.intAt(i), 10)
			}
		}
		return "[" + strings.Join(parts, ",") + "]"
	case AttrDialect:
		if w := enumWord(a); w != "" && len(a.Dict)+len(a.List) == 1 {
			return w
		}
		switch {
		case strings.HasPrefix(a.Str, "stablehlo.conv"):
			return canonConvDims(a.Raw)
		case a.Str == "stablehlo.channel_handle":
			// VHLO keeps only the handle of a collective's channel.
			return "channel_handle<" + canonAttr(a.Dict["handle"]) + ">"
		case a.Str == "sdy.sharding_per_value": // pretty: in_shardings=[<...>]
			return strings.TrimSuffix(strings.TrimPrefix(strings.Join(strings.Fields(a.Raw), ""), "#sdy.sharding_per_value<"), ">")
		case a.Str == "sdy" && strings.HasPrefix(a.Raw, "#sdy<manual_axes"): // pretty: manual_axes={"x"}
			return manualAxes(a.Raw)
		}
		if len(a.Dict) > 0 {
			keys := make([]string, 0, len(a.Dict))
			for k, v := range a.Dict {
				if s := canonAttr(v); s != "[]" {
					keys = append(keys, k+"="+s)
				}
			}
			sort.Strings(keys)
			return a.Str + "<" + strings.Join(keys, ",") + ">"
		}
		return strings.Join(strings.Fields(a.Raw), "")
	}
	return a.Raw
}

func canonConvDims(raw string) string {
	s := strings.Join(strings.Fields(raw), "")
	s = strings.TrimPrefix(s, "#stablehlo.conv<")
	return strings.TrimSuffix(s, ">")
}

var debugCanon = os.Getenv("DEBUGCANON") != ""

// flatInts flattens a list of integers or of lists of integers.
func flatInts(a *Attr) ([]int64, bool) {
	var out []int64
	for _, e := range a.List {
		switch e.Kind {
		case AttrInt:
			out = append(out, e.Int)
		case AttrList:
			v, ok := flatInts(e)
			if !ok {
				return nil, false
			}
			out = append(out, v...)
		default:
			return nil, false
		}
	}
	return out, true
}

func allUnit(d map[string]*Attr) bool {
	for _, v := range d {
		if v.Kind != AttrUnit {
			return false
		}
	}
	return true
}

func sortedKeys(d map[string]*Attr) []string {
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// manualAxes lists the quoted axis names in s, sorted.
func manualAxes(s string) string {
	var names []string
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			break
		}
		names = append(names, s[i+1:i+1+j])
		s = s[i+j+2:]
	}
	sort.Strings(names)
	return "axes" + fmt.Sprint(names)
}
