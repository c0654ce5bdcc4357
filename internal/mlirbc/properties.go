package mlirbc

// propertiesTable is the properties section: the encoded properties of
// every op that has them, referred to by index from the IR.
type propertiesTable struct {
	entries []*decoder
}

func readProperties(d *decoder) *propertiesTable {
	t := &propertiesTable{}
	if d.empty() {
		return t
	}
	n := d.count("properties entry")
	for i := 0; i < n; i++ {
		t.entries = append(t.entries, d.sub(d.varint()))
	}
	if !d.empty() {
		d.fail("trailing bytes in the properties section")
	}
	return t
}

// propField is one inherent attribute of an op in the order its properties
// are encoded: MLIR's ODS writes them sorted by name, a required one as an
// attribute reference and an optional one as a reference with a presence
// flag.
type propField struct {
	name     string
	optional bool
}

// opProperties gives the property layout of the ops this reader decodes.
func opProperties(name string) ([]propField, bool) {
	if f, ok := fixedProperties[name]; ok {
		return f, true
	}
	if len(name) > 5 && name[:5] == "vhlo." {
		f, ok := vhloProperties[name[5:]]
		return f, ok
	}
	return nil, false
}

// vhloProperties is vhloOpAttrs as property layouts.
var vhloProperties = func() map[string][]propField {
	m := make(map[string][]propField, len(vhloOpAttrs))
	for op, attrs := range vhloOpAttrs {
		fields := make([]propField, len(attrs))
		for i, a := range attrs {
			fields[i] = propField{name: a}
		}
		m[op] = fields
	}
	return m
}()

var fixedProperties = map[string][]propField{
	"builtin.module":           {{"sym_name", true}, {"sym_visibility", true}},
	"sdy.mesh":                 {{"mesh", false}, {"sym_name", false}},
	"sdy.sharding_constraint":  {{"sharding", false}},
	"sdy.reshard":              {{"sharding", false}},
	"sdy.manual_computation":   {{"in_shardings", false}, {"manual_axes", false}, {"out_shardings", false}},
	"sdy.sharding_group":       {{"group_id", false}},
	"sdy.constant":             {{"value", false}},
	"sdy.data_flow_edge":       {{"sharding", true}},
	"sdy.propagation_barrier":  {{"allowed_direction", false}},
	"sdy.named_computation":    {{"in_shardings", true}, {"name", false}, {"out_shardings", true}},
	"sdy.all_gather":           {{"gathering_axes", false}, {"out_sharding", false}},
	"sdy.all_slice":            {{"out_sharding", false}, {"slicing_axes", false}},
	"sdy.all_to_all":           {{"out_sharding", false}, {"params", false}},
	"sdy.collective_permute":   {{"out_sharding", false}},
	"sdy.all_reduce":           {{"out_sharding", false}, {"reduction_axes", false}},
	"sdy.sharded_to_unreduced": {{"axes", false}, {"out_sharding", false}},
	"sdy.return":               {},
	"sdy.func_data_flow_edge":  {},
}

// readProps decodes the properties entry of a registered op.
func (f *file) readProps(op *Operation, d *decoder) {
	at := d.off()
	if f.props == nil {
		fail(at, InvalidArgument, "%s has properties but the file has no properties section", op.Name)
	}
	i := d.index(len(f.props.entries), "properties")
	e := f.props.entries[i]
	fields, known := opProperties(op.Name)
	if !known {
		op.RawProps = e.data
		return
	}
	r := f.reader(e.data, e.base)
	op.Props = f.namedAttrs(len(fields))
	for _, field := range fields {
		var a Attribute
		if field.optional {
			a = r.optAttr()
		} else {
			a = r.attr()
		}
		if a != nil {
			op.Props = append(op.Props, NamedAttr{Name: field.name, Value: a})
		}
	}
	if !r.empty() {
		r.fail("%s: %d bytes of properties left over", op.Name, r.remaining())
	}
}
