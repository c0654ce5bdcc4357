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
// operands refer to values by their index in definition order. A use before
// the definition gets a placeholder that the definition fills in.
type valueScope struct {
	values  []*Value
	defined []bool
	next    []int // next index to define, per open region
	pending int   // placeholders not yet defined
}

func (s *valueScope) push(n int) {
	s.next = append(s.next, len(s.values))
	s.values = append(s.values, make([]*Value, n)...)
	s.defined = append(s.defined, make([]bool, n)...)
}

func (s *valueScope) pop(n int) {
	s.values = s.values[:len(s.values)-n]
	s.defined = s.defined[:len(s.defined)-n]
	s.next = s.next[:len(s.next)-1]
}

// define assigns the next indices of the innermost region to vals.
func (s *valueScope) define(d *decoder, vals []*Value) {
	if len(s.next) == 0 {
		d.fail("values defined outside of any region")
	}
	id := s.next[len(s.next)-1]
	if id+len(vals) > len(s.values) {
		d.fail("%d values defined, more than the region declared", id+len(vals))
	}
	for i, v := range vals {
		if old := s.values[id+i]; old != nil && !s.defined[id+i] {
			*old = *v // fill the placeholder so earlier uses see the definition
			vals[i] = old
			s.pending--
		}
		s.values[id+i] = vals[i]
		s.defined[id+i] = true
	}
	s.next[len(s.next)-1] = id + len(vals)
}

func (s *valueScope) use(d *decoder) *Value {
	i := d.index(len(s.values), "value")
	if s.values[i] == nil {
		s.values[i] = &Value{}
		s.pending++
	}
	return s.values[i]
}

type irReader struct {
	f      *file
	scopes []*valueScope
	depth  int
}

func (r *irReader) scope() *valueScope { return r.scopes[len(r.scopes)-1] }

// readIR reads the IR section: one block without a region header whose ops
// are the file's top-level operations.
func (f *file) readIR(d *decoder) []*Operation {
	r := &irReader{f: f, scopes: []*valueScope{{}}}
	r.scope().push(0)
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
	b.Args = make([]*Value, n)
	for i := range b.Args {
		v := &Value{Index: i}
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
	op := &Operation{Offset: d.off()}
	name := &r.f.opNames[d.index(len(r.f.opNames), "operation name")]
	op.Name, op.Registered = name.name, name.registered
	mask := d.byte()
	if mask&^0x7F != 0 {
		d.fail("unknown bits in the op encoding mask 0x%02X", mask)
	}
	op.Loc = r.attrRef(d)
	if mask&opHasAttrs != 0 {
		at := d.off()
		dict, ok := r.attrRef(d).(*DictAttr)
		if !ok {
			fail(at, InvalidArgument, "%s: its attribute dictionary is not a dictionary", op.Name)
		}
		op.Attrs = dict.Entries
	}
	if mask&opHasProperties != 0 {
		if r.f.version < versionNativeProperties {
			d.fail("%s has properties, which bytecode version %d cannot encode", op.Name, r.f.version)
		}
		if op.Registered {
			r.f.readProps(op, d)
		} else {
			at := d.off()
			dict, ok := r.attrRef(d).(*DictAttr)
			if !ok {
				fail(at, InvalidArgument, "%s: the properties of an unregistered op are not a dictionary", op.Name)
			}
			op.Props = dict.Entries
		}
	}
	if mask&opHasResults != 0 {
		op.Results = make([]*Value, d.count("result"))
		for i := range op.Results {
			op.Results[i] = &Value{Type: r.typeRef(d), Owner: op, Index: i}
		}
	}
	if mask&opHasOperands != 0 {
		op.Operands = make([]*Value, d.count("operand"))
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
	if nValues > uint64(d.remaining()) {
		fail(at, InvalidArgument, "region of %d values does not fit in %d bytes", nValues, d.remaining())
	}
	s := r.scope()
	s.push(int(nValues))
	reg.Blocks = make([]*Block, nBlocks)
	for i := range reg.Blocks {
		reg.Blocks[i] = &Block{}
	}
	for _, b := range reg.Blocks {
		n := r.blockHeader(d, b)
		r.blockOps(d, b, n, reg.Blocks)
	}
	s.pop(int(nValues))
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
