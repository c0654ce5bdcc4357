package mlirbc

// A small bytecode writer for tests: just enough to build valid files and
// break them in one place at a time.

// enc is a PrefixVarInt encoder, the inverse of decoder.varint.
func enc(v uint64) []byte {
	for n := 1; n <= 8; n++ {
		if v < 1<<(7*n) {
			x := v<<n | 1<<(n-1)
			out := make([]byte, n)
			for i := range out {
				out[i] = byte(x >> (8 * i))
			}
			return out
		}
	}
	out := make([]byte, 9)
	for i := 1; i < 9; i++ {
		out[i] = byte(v >> (8 * (i - 1)))
	}
	return out
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func section(id byte, data []byte) []byte { return cat([]byte{id}, enc(uint64(len(data))), data) }

func stringSection(strs ...string) []byte {
	out := enc(uint64(len(strs)))
	for i := len(strs) - 1; i >= 0; i-- {
		out = append(out, enc(uint64(len(strs[i])+1))...)
	}
	for _, s := range strs {
		out = append(out, s...)
		out = append(out, 0)
	}
	return out
}

// testFile is a bytecode file in parts; bytes() assembles it. The default
// (minimalFile) holds one builtin.module op located at loc(unknown).
type testFile struct {
	version  uint64
	producer string
	sections map[byte][]byte
	order    []byte
}

func minimalFile() *testFile {
	return &testFile{
		version:  6,
		producer: "test",
		sections: map[byte][]byte{
			sectionString: stringSection("builtin", "module"),
			// one dialect (string 0, no version); one op name (builtin, string 1, registered)
			sectionDialect: cat(enc(1), enc(0), enc(1), enc(0), enc(1), enc(1<<1|1)),
			// attribute 0: builtin code 15, UnknownLoc
			sectionAttrType:       enc(15),
			sectionAttrTypeOffset: cat(enc(1), enc(0), enc(0), enc(1), enc(1<<1|1)),
			// the top block: one op (name 0, mask 0, loc attribute 0)
			sectionIR:         cat(enc(1<<1), enc(0), []byte{0}, enc(0)),
			sectionProperties: nil,
		},
		order: []byte{sectionString, sectionDialect, sectionAttrType, sectionAttrTypeOffset, sectionIR, sectionProperties},
	}
}

func (f *testFile) bytes() []byte {
	out := cat(Magic, enc(f.version), []byte(f.producer), []byte{0})
	for _, id := range f.order {
		if data, ok := f.sections[id]; ok {
			out = append(out, section(id, data)...)
		}
	}
	return out
}

// withAttrs replaces the attribute table: entries are custom builtin
// encodings, all of the builtin dialect.
func (f *testFile) withAttrs(entries ...[]byte) *testFile {
	f.sections[sectionAttrType] = cat(entries...)
	offsets := cat(enc(uint64(len(entries))), enc(0), enc(0), enc(uint64(len(entries))))
	for _, e := range entries {
		offsets = append(offsets, enc(uint64(len(e))<<1|1)...)
	}
	f.sections[sectionAttrTypeOffset] = offsets
	return f
}
