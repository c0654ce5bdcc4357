package mlirbc

// Op encoding mask bits.
const (
	opHasAttrs         = 1 << 0
	opHasResults       = 1 << 1
	opHasOperands      = 1 << 2
	opHasSuccessors    = 1 << 3
	opHasInlineRegions = 1 << 4
	opHasUseListOrders = 1 << 5
	opHasProperties    = 1 << 6
)

// valueScope numbers the values of one isolated-from-above region tree:
// operands refer to values by their index in definition order, each region
// reserving a range of indices. A use before the definition gets a
// placeholder that the definition fills in. Storage grows with the values
// actually seen, not with the (untrusted) reserved counts.
type valueScope struct {
	values  []*Value
	defined []bool
	regions []valueRange // open regions, innermost last
	pending int          // placeholders not yet defined
}

type valueRange struct{ base, next, end int }

func (s *valueScope) end() int {
	if len(s.regions) == 0 {
		return 0
	}
	return s.regions[len(s.regions)-1].end
}

func (s *valueScope) push(n int) {
	e := s.end()
	s.regions = append(s.regions, valueRange{base: e, next: e, end: e + n})
}

func (s *valueScope) pop() {
	r := s.regions[len(s.regions)-1]
	s.regions = s.regions[:len(s.regions)-1]
	if len(s.values) > r.base {
		s.values, s.defined = s.values[:r.base], s.defined[:r.base]
	}
}

// slot returns the storage of value index i, growing it as needed.
func (s *valueScope) slot(i int) **Value {
	for len(s.values) <= i {
		s.values = append(s.values, nil)
		s.defined = append(s.defined, false)
	}
	return &s.values[i]
}

// define assigns the next indices of the innermost region to vals.
func (s *valueScope) define(d *decoder, vals []*Value) {
	if len(s.regions) == 0 {
		if len(vals) > 0 {
			d.fail("values defined outside of any region")
		}
		return
	}
	r := &s.regions[len(s.regions)-1]
	if r.next+len(vals) > r.end {
		d.fail("%d values defined in a region that declared %d", r.next+len(vals)-r.base, r.end-r.base)
	}
	for i, v := range vals {
		id := r.next + i
		p := s.slot(id)
		if old := *p; old != nil && !s.defined[id] {
			*old = *v // fill the placeholder so earlier uses see the definition
			vals[i] = old
			s.pending--
		}
		*p = vals[i]
		s.defined[id] = true
	}
	r.next += len(vals)
}

func (s *valueScope) use(d *decoder) *Value {
	i := d.index(s.end(), "value")
	p := s.slot(i)
	if *p == nil {
		*p = &Value{}
		s.pending++
	}
	return *p
}

type irReader struct {
	f      *file
	scopes []*valueScope
	depth  int
	size   int // of the IR section: every value takes at least a byte of it
}

func (r *irReader) scope() *valueScope { return r.scopes[len(r.scopes)-1] }

// readIR reads the IR section: one block without a region header whose ops
// are the file's top-level operations.
func (f *file) readIR(d *decoder) []*Operation {
	r := &irReader{f: f, scopes: []*valueScope{{}}, size: len(d.data)}
	b := &Block{}
	nOps := r.blockHeader(d, b)
	r.blockOps(d, b, nOps, nil)
	if r.scope().pending != 0 {
		d.fail("%d values are used but never defined", r.scope().pending)
	}
	return b.Ops
}

// blockHeader reads a block's op count and arguments.
func (r *irReader) blockHeader(d *decoder, b *Block) int {
	nOps, hasArgs := d.varintFlag()
	if nOps > uint64(d.remaining()) {
		d.fail("block of %d ops does not fit in %d bytes", nOps, d.remaining())
	}
	if !hasArgs {
		return int(nOps)
	}
	n := d.count("block argument")
	b.Args = r.f.valuePtrs(n)
	vals := r.f.values(n)
	for i := range b.Args {
		v := &vals[i]
		v.ID, v.Index = r.f.newValueID(), i
		if r.f.version >= versionElideUnknownArgLocs {
			at := d.off()
			t, hasLoc := d.varintFlag()
			v.Type = r.f.typeAt(int(min(t, 1<<31)), at)
			if hasLoc {
				v.Loc = r.attrRef(d)
			}
		} else {
			v.Type = r.typeRef(d)
			v.Loc = r.attrRef(d)
		}
		b.Args[i] = v
	}
	r.scope().define(d, b.Args)
	if r.f.version >= versionUseListOrdering && d.byte() != 0 {
		r.useListOrders(d, len(b.Args))
	}
	return int(nOps)
}

func (r *irReader) blockOps(d *decoder, b *Block, n int, blocks []*Block) {
	b.Ops = make([]*Operation, 0, min(n, 1024))
	for i := 0; i < n; i++ {
		b.Ops = append(b.Ops, r.op(d, blocks))
	}
}

// dictRef reads an attribute reference that must be a dictionary and
// returns its entries; format and args say what it is when it is not.
func (r *irReader) dictRef(d *decoder, format string, args ...any) []NamedAttr {
	at := d.off()
	dict, ok := r.attrRef(d).(*DictAttr)
	if !ok {
		fail(at, InvalidArgument, format, args...)
	}
	return dict.Entries
}

func (r *irReader) attrRef(d *decoder) Attribute {
	at := d.off()
	return r.f.attribute(int(min(d.varint(), 1<<31)), at)
}

func (r *irReader) typeRef(d *decoder) Type {
	at := d.off()
	return r.f.typeAt(int(min(d.varint(), 1<<31)), at)
}

// op reads one operation and, recursively, its regions. blocks are the
// blocks of the enclosing region, which successors refer to.
func (r *irReader) op(d *decoder, blocks []*Block) *Operation {
	op := r.f.newOp()
	op.Offset = d.off()
	name := &r.f.opNames[d.index(len(r.f.opNames), "operation name")]
	op.Name, op.Registered = name.name, name.registered
	mask := d.byte()
	if mask&^0x7F != 0 {
		d.fail("unknown bits in the op encoding mask 0x%02X", mask)
	}
	op.Loc = r.attrRef(d)
	if mask&opHasAttrs != 0 {
		op.Attrs = r.dictRef(d, "%s: its attribute dictionary is not a dictionary", op.Name)
	}
	if mask&opHasProperties != 0 {
		if r.f.version < versionNativeProperties {
			d.fail("%s has properties, which bytecode version %d cannot encode", op.Name, r.f.version)
		}
		if op.Registered {
			r.f.readProps(op, d)
		} else {
			op.Props = r.dictRef(d, "%s: the properties of an unregistered op are not a dictionary", op.Name)
		}
	}
	if mask&opHasResults != 0 {
		n := d.count("result")
		op.Results = r.f.valuePtrs(n)
		vals := r.f.values(n)
		for i := range op.Results {
			vals[i] = Value{ID: r.f.newValueID(), Type: r.typeRef(d), Owner: op, Index: i}
			op.Results[i] = &vals[i]
		}
	}
	if mask&opHasOperands != 0 {
		op.Operands = r.f.valuePtrs(d.count("operand"))
		for i := range op.Operands {
			op.Operands[i] = r.scope().use(d)
		}
	}
	if mask&opHasSuccessors != 0 {
		op.Successors = make([]*Block, d.count("successor"))
		for i := range op.Successors {
			op.Successors[i] = blocks[d.index(len(blocks), "successor block")]
		}
	}
	if mask&opHasUseListOrders != 0 && r.f.version >= versionUseListOrdering {
		r.useListOrders(d, len(op.Results))
	}
	nRegions := 0
	if mask&opHasInlineRegions != 0 {
		n, isolated := d.varintFlag()
		if n > uint64(d.remaining()) {
			d.fail("%s: %d regions do not fit", op.Name, n)
		}
		nRegions, op.Isolated = int(n), isolated
	}
	r.scope().define(d, op.Results)
	for i, v := range op.Results {
		v.Owner, v.Index = op, i
	}
	if nRegions == 0 {
		return op
	}
	if r.depth >= maxDepth {
		d.fail("regions nest deeper than %d", maxDepth)
	}
	r.depth++
	defer func() { r.depth-- }()
	rd := d
	if op.Isolated {
		if r.f.version >= versionLazyLoading {
			at := d.off()
			id, s := d.section()
			if id != sectionIR {
				fail(at, InvalidArgument, "%s: its isolated regions must be an IR section, found a %s section", op.Name, sectionNames[id])
			}
			rd = s
		}
		r.scopes = append(r.scopes, &valueScope{})
	}
	op.Regions = make([]*Region, nRegions)
	for i := range op.Regions {
		op.Regions[i] = r.region(rd)
	}
	if op.Isolated {
		if n := r.scope().pending; n != 0 {
			rd.fail("%s: %d values are used but never defined", op.Name, n)
		}
		r.scopes = r.scopes[:len(r.scopes)-1]
	}
	return op
}

// region reads a region: its block count, the values it defines, and its
// blocks.
func (r *irReader) region(d *decoder) *Region {
	reg := &Region{}
	nBlocks := d.count("block")
	if nBlocks == 0 {
		return reg
	}
	at := d.off()
	nValues := d.varint()
	s := r.scope()
	if nValues > uint64(d.remaining()) || uint64(s.end())+nValues > uint64(r.size) {
		fail(at, InvalidArgument, "region of %d values does not fit in the IR section", nValues)
	}
	s.push(int(nValues))
	reg.Blocks = make([]*Block, nBlocks)
	for i := range reg.Blocks {
		reg.Blocks[i] = &Block{}
	}
	for _, b := range reg.Blocks {
		n := r.blockHeader(d, b)
		r.blockOps(d, b, n, reg.Blocks)
	}
	s.pop()
	return reg
}

// useListOrders reads (and checks the shape of) the use-list order of a
// range of n values; the reader keeps no use lists, so it drops them.
func (r *irReader) useListOrders(d *decoder, n int) {
	count := 1
	if n > 1 {
		count = d.count("use-list order")
	}
	for i := 0; i < count; i++ {
		if n > 1 {
			d.index(n, "use-list value")
		}
		k, _ := d.varintFlag()
		if k > uint64(d.remaining()) {
			d.fail("use-list order of %d indices does not fit", k)
		}
		for ; k > 0; k-- {
			d.varint()
		}
	}
}
