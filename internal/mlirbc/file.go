package mlirbc

import (
	"bytes"
	"fmt"
	"runtime/debug"
)

// Magic starts every MLIR bytecode file.
var Magic = []byte("ML\xefR")

// MaxVersion is the newest bytecode format version Read understands (MLIR's
// kNativePropertiesODSSegmentSize).
const MaxVersion = 6

// Format versions that changed the encoding.
const (
	versionDialectVersioning   = 1
	versionLazyLoading         = 2
	versionUseListOrdering     = 3
	versionElideUnknownArgLocs = 4
	versionNativeProperties    = 5
)

// Section IDs.
const (
	sectionString = iota
	sectionDialect
	sectionAttrType
	sectionAttrTypeOffset
	sectionIR
	sectionResource
	sectionResourceOffset
	sectionDialectVersions
	sectionProperties
	numSections
)

var sectionNames = [numSections]string{"string", "dialect", "attribute/type", "attribute/type offset",
	"IR", "resource", "resource offset", "dialect versions", "properties"}

// IsBytecode reports whether data starts with the bytecode magic number.
func IsBytecode(data []byte) bool { return bytes.HasPrefix(data, Magic) }

// file is the state of one Read.
type file struct {
	version          uint64
	strings          []string
	dialects         []dialectEntry
	opNames          []opName
	attrs, types     []entry
	props            *propertiesTable
	dialectResources []*Resource
	depth            int
	readers          []*entryReader // by depth, see reader
	numValues        int
	arena
}

func (f *file) newValueID() int {
	f.numValues++
	return f.numValues - 1
}

type dialectEntry struct {
	name    string
	version []byte
}

type opName struct {
	dialect    *dialectEntry
	name       string // "dialect.op"
	registered bool
}

// Read decodes a bytecode file. It checks every offset, count and index
// against the input, so malformed or hostile input gives an *Error (never a
// panic), and it allocates at most a small multiple of len(data).
//
// Attributes and types of the builtin, vhlo and sdy dialects are decoded
// into this package's types; those a producer stored as text become
// OpaqueAttr and OpaqueType; custom encodings of other dialects fail with
// Unimplemented. Properties are decoded for builtin.module and the vhlo and
// sdy ops; other registered ops keep theirs in Operation.RawProps.
// Use-list orders are checked and dropped (they do not change the program).
func Read(data []byte) (m *Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			m = nil
			if f, ok := r.(failure); ok {
				err = f.err
				return
			}
			err = &Error{Msg: fmt.Sprintf("reader failure: %v\n%s", r, debug.Stack()), code: Internal}
		}
	}()
	d := &decoder{data: data}
	if !IsBytecode(data) {
		d.fail("not MLIR bytecode: the input does not start with \"ML\\xEFR\"")
	}
	d.pos = len(Magic)
	f := &file{}
	m = &Module{}
	at := d.off()
	f.version = d.varint()
	if f.version > MaxVersion {
		fail(at, Unimplemented, "bytecode version %d is newer than the newest this reader knows (%d)", f.version, MaxVersion)
	}
	m.Version = f.version
	m.Producer = d.cstring()

	var sections [numSections]*decoder
	for !d.empty() {
		at := d.off()
		id, s := d.section()
		if sections[id] != nil {
			fail(at, InvalidArgument, "duplicate %s section", sectionNames[id])
		}
		sections[id] = s
	}
	for _, id := range []int{sectionString, sectionDialect, sectionAttrType, sectionAttrTypeOffset, sectionIR} {
		if sections[id] == nil {
			d.fail("missing %s section", sectionNames[id])
		}
	}
	if f.version >= versionNativeProperties && sections[sectionProperties] == nil {
		d.fail("missing properties section")
	}
	f.readStrings(sections[sectionString])
	if s := sections[sectionProperties]; s != nil {
		f.props = readProperties(s)
	}
	f.readDialects(sections[sectionDialect])
	if (sections[sectionResource] == nil) != (sections[sectionResourceOffset] == nil) {
		d.fail("the resource and resource offset sections must come together")
	}
	if sections[sectionResource] != nil {
		f.readResources(sections[sectionResource], sections[sectionResourceOffset])
	}
	f.readAttrTypeOffsets(sections[sectionAttrType], sections[sectionAttrTypeOffset])
	m.Ops = f.readIR(sections[sectionIR])
	m.NumValues = f.numValues
	for _, de := range f.dialects {
		m.Dialects = append(m.Dialects, Dialect{Name: de.name, Version: de.version})
	}
	return m, nil
}

func (f *file) stringAt(i int, at int) string {
	if i < 0 || i >= len(f.strings) {
		fail(at, InvalidArgument, "string index %d out of range (%d strings)", i, len(f.strings))
	}
	return f.strings[i]
}

// readStrings reads the string section: a count, the sizes in reverse
// order, then the NUL-terminated strings back to back.
func (f *file) readStrings(d *decoder) {
	n := d.count("string")
	sizes := make([]uint64, n)
	for i := n - 1; i >= 0; i-- {
		sizes[i] = d.varint()
	}
	blob := d.data[d.pos:]
	f.strings = make([]string, n)
	start := 0
	for i, size := range sizes {
		if size == 0 || size > uint64(len(blob)-start) {
			d.fail("string %d of %d bytes does not fit in the string section", i, size)
		}
		end := start + int(size)
		if blob[end-1] != 0 {
			fail(d.base+d.pos+end-1, InvalidArgument, "string %d is not NUL-terminated", i)
		}
		f.strings[i] = string(blob[start : end-1])
		start = end
	}
	if start != len(blob) {
		d.fail("%d bytes of the string section belong to no string", len(blob)-start)
	}
}

// readDialects reads the dialect names (with their versions) and the op
// names grouped by dialect.
func (f *file) readDialects(d *decoder) {
	n := d.count("dialect")
	f.dialects = make([]dialectEntry, n)
	for i := range f.dialects {
		at := d.off()
		if f.version < versionDialectVersioning {
			f.dialects[i].name = f.stringAt(int(min(d.varint(), 1<<31)), at)
			continue
		}
		idx, hasVersion := d.varintFlag()
		f.dialects[i].name = f.stringAt(int(min(idx, 1<<31)), at)
		if hasVersion {
			at := d.off()
			id, v := d.section()
			if id != sectionDialectVersions {
				fail(at, InvalidArgument, "dialect %q: expected a dialect version section, found a %s section", f.dialects[i].name, sectionNames[id])
			}
			f.dialects[i].version = v.data
		}
	}
	if f.version >= versionElideUnknownArgLocs {
		d.count("operation name") // a capacity hint
	}
	for !d.empty() {
		de := &f.dialects[d.index(len(f.dialects), "dialect")]
		for k := d.count("operation name"); k > 0; k-- {
			at := d.off()
			idx, registered := uint64(0), true
			if f.version < versionNativeProperties {
				idx = d.varint()
			} else {
				idx, registered = d.varintFlag()
			}
			name := f.stringAt(int(min(idx, 1<<31)), at)
			full := de.name
			if name != "" {
				full += "." + name
			}
			f.opNames = append(f.opNames, opName{dialect: de, name: full, registered: registered})
		}
	}
}
