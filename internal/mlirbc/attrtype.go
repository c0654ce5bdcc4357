package mlirbc

// maxDepth bounds the nesting of attributes, types and regions, so that
// hostile input cannot exhaust the stack.
const maxDepth = 500

// entry is one attribute or type of the attribute/type section; it is
// decoded on first use.
type entry struct {
	dialect *dialectEntry
	custom  bool // dialect encoding, else assembly text
	data    []byte
	base    int
	state   byte // 0 undecoded, 1 decoding, 2 done
	attr    Attribute
	typ     Type
}

// readAttrTypeOffsets fills the attribute and type tables from the offset
// section; the entries' contents stay in the attribute/type section.
func (f *file) readAttrTypeOffsets(data, offsets *decoder) {
	nAttrs := offsets.count("attribute")
	nTypes := offsets.count("type")
	if nAttrs+nTypes > offsets.remaining() {
		offsets.fail("%d attributes and %d types do not fit in the offset section", nAttrs, nTypes)
	}
	f.attrs = make([]entry, nAttrs)
	f.types = make([]entry, nTypes)
	next := 0
	fill := func(table []entry) {
		for i := 0; i < len(table); {
			d := &f.dialects[offsets.index(len(f.dialects), "dialect")]
			n := offsets.count("entry")
			if n > len(table)-i {
				offsets.fail("group of %d entries overflows the table of %d", n, len(table))
			}
			for ; n > 0; n-- {
				at := offsets.off()
				size, custom := offsets.varintFlag()
				if size > uint64(len(data.data)-next) {
					fail(at, InvalidArgument, "entry of %d bytes runs past the attribute/type section", size)
				}
				table[i] = entry{dialect: d, custom: custom, data: data.data[next : next+int(size)], base: data.base + next}
				next += int(size)
				i++
			}
		}
	}
	fill(f.attrs)
	fill(f.types)
	if !offsets.empty() {
		offsets.fail("trailing bytes in the attribute/type offset section")
	}
}

func (f *file) attribute(i int, at int) Attribute {
	return f.entryAt(f.attrs, i, at, "attribute", false).attr
}

func (f *file) typeAt(i int, at int) Type {
	return f.entryAt(f.types, i, at, "type", true).typ
}

// entryAt returns entry i of table, decoded; what names the table's items
// in the error.
func (f *file) entryAt(table []entry, i, at int, what string, isType bool) *entry {
	if i < 0 || i >= len(table) {
		fail(at, InvalidArgument, "%s index %d out of range (%d %ss)", what, i, len(table), what)
	}
	e := &table[i]
	f.decode(e, isType)
	return e
}

func (f *file) decode(e *entry, isType bool) {
	switch e.state {
	case 2:
		return
	case 1:
		fail(e.base, InvalidArgument, "attribute or type refers to itself")
	}
	if f.depth >= maxDepth {
		fail(e.base, InvalidArgument, "attributes and types nest deeper than %d", maxDepth)
	}
	f.depth++
	e.state = 1
	r := f.reader(e.data, e.base)
	switch {
	case !e.custom:
		text := r.cstring()
		if isType {
			e.typ = &OpaqueType{Dialect: e.dialect.name, Text: text}
		} else {
			e.attr = &OpaqueAttr{Dialect: e.dialect.name, Text: text}
		}
	default:
		readAttr, readType := codecFor(e.dialect.name)
		if isType && readType == nil || !isType && readAttr == nil {
			kind := "attribute"
			if isType {
				kind = "type"
			}
			fail(e.base, Unimplemented, "dialect %q: the bytecode encoding of its %ss is not supported", e.dialect.name, kind)
		}
		if isType {
			e.typ = readType(r)
		} else {
			e.attr = readAttr(r)
		}
	}
	if !r.empty() {
		r.fail("%d trailing bytes after the entry", r.remaining())
	}
	e.state = 2
	f.depth--
}

// reader returns an entryReader over data for the current nesting depth;
// readers are reused, as a depth's reader is done before the next entry at
// that depth starts.
func (f *file) reader(data []byte, base int) *entryReader {
	for len(f.readers) <= f.depth {
		f.readers = append(f.readers, &entryReader{decoder: &decoder{}, f: f})
	}
	r := f.readers[f.depth]
	*r.decoder = decoder{data: data, base: base}
	return r
}

// codecFor returns the decoders of a dialect's custom attribute and type
// encodings; nil for those this package does not know.
func codecFor(dialect string) (func(*entryReader) Attribute, func(*entryReader) Type) {
	switch dialect {
	case "builtin":
		return readBuiltinAttr, readBuiltinType
	case "vhlo":
		return readVHLOAttr, readVHLOType
	case "sdy":
		return readSdyAttr, nil
	}
	return nil, nil
}
