package mlirbc

// Resource is an entry of the resource section: a blob, bool or string
// that a dialect (e.g. the builtin dialect's dense_resource constants) or
// an external provider attached to the file.
type Resource struct {
	Group string // the dialect or external provider
	Key   string
	Kind  ResourceKind
	Blob  []byte // for ResourceBlob
	Bool  bool   // for ResourceBool
	Str   string // for ResourceString
}

// ResourceKind is the kind of a Resource's value.
type ResourceKind byte

// Resource kinds (MLIR's AsmResourceEntryKind).
const (
	ResourceBlob ResourceKind = iota
	ResourceBool
	ResourceString
)

// readResources reads the resource offset section, which lists the entries
// by group, and takes each entry's value from the resource section.
// External groups come first, then dialect groups; entries of dialect
// groups are what attributes refer to, in order.
func (f *file) readResources(data, offsets *decoder) {
	groups := offsets.count("external resource group")
	for g := 0; g < groups; g++ {
		at := offsets.off()
		name := f.stringAt(int(min(offsets.varint(), 1<<31)), at)
		f.readResourceGroup(name, data, offsets, false)
	}
	for !offsets.empty() {
		de := &f.dialects[offsets.index(len(f.dialects), "dialect")]
		f.readResourceGroup(de.name, data, offsets, true)
	}
}

func (f *file) readResourceGroup(group string, data, offsets *decoder, dialect bool) {
	for n := offsets.count("resource"); n > 0; n-- {
		at := offsets.off()
		key := f.stringAt(int(min(offsets.varint(), 1<<31)), at)
		size := offsets.varint()
		kind := ResourceKind(offsets.byte())
		value := data.sub(size)
		res := &Resource{Group: group, Key: key, Kind: kind}
		if dialect {
			f.dialectResources = append(f.dialectResources, res)
		}
		if value.empty() && dialect {
			continue // a declaration without a value
		}
		switch kind {
		case ResourceBlob:
			align := value.varint()
			n := value.varint()
			value.alignTo(align)
			res.Blob = value.bytes(n)
		case ResourceBool:
			res.Bool = value.byte() != 0
		case ResourceString:
			vat := value.off()
			res.Str = f.stringAt(int(min(value.varint(), 1<<31)), vat)
		default:
			fail(at, InvalidArgument, "resource %q has unknown kind %d", key, kind)
		}
		if !value.empty() {
			value.fail("trailing bytes in resource %q", key)
		}
	}
}
