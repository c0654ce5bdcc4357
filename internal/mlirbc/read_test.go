package mlirbc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestVarint(t *testing.T) {
	values := []uint64{0, 1, 63, 64, 127, 128, 1<<14 - 1, 1 << 14, 1<<21 + 5, 1<<28 - 1, 1 << 35, 1<<49 - 1, 1 << 49, 1<<56 - 1, 1 << 56, 1<<64 - 1}
	for _, v := range values {
		d := &decoder{data: enc(v)}
		if got := d.varint(); got != v || !d.empty() {
			t.Errorf("varint %d (% x) read as %d with %d bytes left", v, enc(v), got, d.remaining())
		}
	}
	for _, v := range []int64{0, 1, -1, 63, -64, 1 << 40, -(1 << 40), 1<<63 - 1, -1 << 63} {
		d := &decoder{data: enc(zigzag(v))}
		if got := d.svarint(); got != v {
			t.Errorf("signed varint %d read as %d", v, got)
		}
	}
	if n := len(enc(1<<7 - 1)); n != 1 {
		t.Errorf("127 takes %d bytes, want 1", n)
	}
	if n := len(enc(1 << 63)); n != 9 {
		t.Errorf("2^63 takes %d bytes, want 9", n)
	}
}

func TestReadMinimal(t *testing.T) {
	m, err := Read(minimalFile().bytes())
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != 6 || m.Producer != "test" || len(m.Ops) != 1 || m.Ops[0].Name != "builtin.module" || !m.Ops[0].Registered {
		t.Fatalf("Read = version %d producer %q ops %+v", m.Version, m.Producer, m.Ops)
	}
	if _, ok := m.Ops[0].Loc.(*UnknownLoc); !ok {
		t.Errorf("location = %v, want loc(unknown)", m.Ops[0].Loc)
	}
}

// TestReadErrors breaks a valid file in one place at a time: each must fail
// with its code, a message saying what is wrong, and the offset of the bad
// byte.
func TestReadErrors(t *testing.T) {
	valid := minimalFile().bytes()
	var entries [][]byte
	for i := 0; i < maxDepth+10; i++ {
		entries = append(entries, cat(enc(0), enc(1), enc(uint64(i+1)))) // attribute i = [attribute i+1]
	}
	entries = append(entries, enc(7)) // unit
	for _, c := range []struct {
		name   string
		data   []byte
		code   int
		substr string
		offset int // -1: not checked
	}{
		{"empty", nil, InvalidArgument, "not MLIR bytecode", 0},
		{"text", []byte("module {}"), InvalidArgument, "not MLIR bytecode", 0},
		{"magic only", Magic, InvalidArgument, "unexpected end", 4},
		{"truncated", valid[:len(valid)-1], InvalidArgument, "unexpected end", len(valid) - 1},
		{"newer version", func() []byte { f := minimalFile(); f.version = 7; return f.bytes() }(), Unimplemented, "newer", 4},
		{"producer without NUL", cat(Magic, enc(6), []byte("abc")), InvalidArgument, "NUL", 5},
		{"missing IR", func() []byte { f := minimalFile(); delete(f.sections, sectionIR); return f.bytes() }(), InvalidArgument, "missing IR section", -1},
		{"missing properties in v6", func() []byte { f := minimalFile(); delete(f.sections, sectionProperties); return f.bytes() }(), InvalidArgument, "missing properties", -1},
		{"duplicate section", append(append([]byte(nil), valid...), section(sectionString, stringSection())...), InvalidArgument, "duplicate string section", len(valid)},
		{"unknown section", cat(valid, []byte{9}, enc(0)), InvalidArgument, "unknown section ID 9", -1},
		{"string size too large", func() []byte {
			f := minimalFile()
			f.sections[sectionString] = cat(enc(1), enc(50), []byte("ab\x00"))
			return f.bytes()
		}(), InvalidArgument, "does not fit", -1},
		{"string without NUL", func() []byte {
			f := minimalFile()
			f.sections[sectionString] = cat(enc(1), enc(3), []byte("abc"))
			return f.bytes()
		}(), InvalidArgument, "not NUL-terminated", -1},
		{"string count larger than the section", func() []byte {
			f := minimalFile()
			f.sections[sectionString] = cat(enc(1<<40), []byte("x"))
			return f.bytes()
		}(), InvalidArgument, "exceeds", -1},
		{"attribute index out of range", func() []byte {
			f := minimalFile()
			f.sections[sectionIR] = cat(enc(1<<1), enc(0), []byte{0}, enc(5))
			return f.bytes()
		}(), InvalidArgument, "attribute index 5 out of range", -1},
		{"attribute refers to itself", minimalFile().withAttrs(cat(enc(0), enc(1), enc(0))).bytes(), InvalidArgument, "refers to itself", -1},
		{"attributes nest too deep", minimalFile().withAttrs(entries...).bytes(), InvalidArgument, "deeper than", -1},
		{"trailing bytes in an attribute", minimalFile().withAttrs(cat(enc(15), enc(0))).bytes(), InvalidArgument, "trailing bytes", -1},
		{"unknown builtin attribute code", minimalFile().withAttrs(enc(99)).bytes(), InvalidArgument, "unknown builtin attribute code 99", -1},
		{"location that is not a string", minimalFile().withAttrs(cat(enc(14), enc(1), enc(1)), enc(7)).bytes(), InvalidArgument, "expected *mlirbc.StringAttr", -1},
		{"dialect without a codec", func() []byte {
			f := minimalFile()
			f.sections[sectionString] = stringSection("builtin", "module", "foo")
			f.sections[sectionDialect] = cat(enc(2), enc(0), enc(2<<1), enc(1), enc(0), enc(1), enc(1<<1|1))
			f.sections[sectionAttrType] = enc(1)
			f.sections[sectionAttrTypeOffset] = cat(enc(1), enc(0), enc(1), enc(1), enc(1<<1|1))
			return f.bytes()
		}(), Unimplemented, `dialect "foo"`, -1},
		{"op count larger than the section", func() []byte {
			f := minimalFile()
			f.sections[sectionIR] = cat(enc(1<<30<<1), enc(0))
			return f.bytes()
		}(), InvalidArgument, "does not fit", -1},
		{"operand that was never defined", func() []byte {
			f := minimalFile()
			f.sections[sectionIR] = cat(enc(1<<1), enc(0), []byte{opHasOperands}, enc(0), enc(1), enc(0))
			return f.bytes()
		}(), InvalidArgument, "value index 0 out of range", -1},
		{"unknown mask bits", func() []byte {
			f := minimalFile()
			f.sections[sectionIR] = cat(enc(1<<1), enc(0), []byte{0x80}, enc(0))
			return f.bytes()
		}(), InvalidArgument, "mask", -1},
		{"bad alignment padding", func() []byte {
			f := minimalFile()
			delete(f.sections, sectionProperties)
			b := f.bytes()
			// an aligned properties section, padded with a wrong byte
			return cat(b, []byte{sectionProperties | 0x80}, enc(0), enc(16), []byte{0x00})
		}(), InvalidArgument, "padding byte", -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.data)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Read error = %v, want an *Error", err)
			}
			if e.Code() != c.code || !strings.Contains(e.Msg, c.substr) {
				t.Errorf("Read error = %v (code %d), want code %d containing %q", err, e.Code(), c.code, c.substr)
			}
			if c.offset >= 0 && e.Offset != c.offset {
				t.Errorf("error offset = %d, want %d", e.Offset, c.offset)
			}
			if !strings.HasPrefix(err.Error(), "mlirbc: ") {
				t.Errorf("error %q does not start with \"mlirbc: <offset>: \"", err)
			}
		})
	}
}

// corpusFiles lists the portable artifacts the repository keeps.
func corpusFiles(t testing.TB) []string {
	var files []string
	for _, dir := range []string{"../stablehlo/testdata/golden", "../stablehlo/testdata/jax0.12", "../stablehlo/testdata/bytecode", "../../pjrt/pjrtifrt/testdata", "../../pjrt/testdata"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.mlirbc"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 90 {
		t.Fatalf("found %d .mlirbc files, want the golden corpus and more", len(files))
	}
	return files
}

// TestReadCorpus reads every portable artifact of the repository and checks
// what every StableHLO artifact has: one builtin.module of vhlo.func_v1 ops
// and sdy.mesh ops, each function with a body that ends with vhlo.return_v1,
// and every op's properties decoded.
func TestReadCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Read(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !strings.HasPrefix(m.Producer, "StableHLO_v") || len(m.Ops) != 1 || m.Ops[0].Name != "builtin.module" {
			t.Errorf("%s: producer %q, %d top-level ops", path, m.Producer, len(m.Ops))
			continue
		}
		funcs := 0
		walk(m.Ops[0], func(op *Operation) {
			if op.RawProps != nil {
				t.Errorf("%s: %s: properties not decoded", path, op.Name)
			}
			for _, v := range op.Results {
				if v.Type == nil || v.Owner != op {
					t.Errorf("%s: %s: result without a type or owner", path, op.Name)
				}
			}
			for _, v := range op.Operands {
				if v.Type == nil {
					t.Errorf("%s: %s: operand without a definition", path, op.Name)
				}
			}
			if op.Name == "vhlo.func_v1" {
				funcs++
				ops := op.Regions[0].Blocks[0].Ops
				if last := ops[len(ops)-1]; last.Name != "vhlo.return_v1" {
					t.Errorf("%s: a function ends with %s", path, last.Name)
				}
				if _, ok := op.Attr("sym_name").(*VHLOString); !ok {
					t.Errorf("%s: a function has no sym_name", path)
				}
			}
		})
		if funcs == 0 {
			t.Errorf("%s: no functions", path)
		}
	}
}

func walk(op *Operation, f func(*Operation)) {
	f(op)
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				walk(o, f)
			}
		}
	}
}

func TestSdyStrings(t *testing.T) {
	mesh := &SymbolRefAttr{Root: "mesh"}
	x, y := &SdyAxisRef{Name: "x"}, &SdyAxisRef{Name: "y", Sub: &SdySubAxisInfo{PreSize: 1, Size: 2}}
	for _, c := range []struct {
		attr Attribute
		want string
	}{
		{&SdyTensorSharding{Mesh: mesh, Dims: []*SdyDimSharding{{Axes: []*SdyAxisRef{x}, Closed: true, Priority: -1}, {Closed: true, Priority: -1}}},
			`#sdy.sharding<@mesh, [{"x"}, {}]>`},
		{&SdyTensorSharding{Mesh: mesh, Dims: []*SdyDimSharding{{Axes: []*SdyAxisRef{y}, Priority: 1}, {Priority: -1}}, Replicated: []*SdyAxisRef{x}},
			`#sdy.sharding<@mesh, [{"y":(1)2, ?}p1, {?}], replicated={"x"}>`},
		{&SdyMesh{Axes: []*SdyMeshAxis{{"x", 2}, {"y", 4}}}, `#sdy.mesh<["x"=2, "y"=4]>`},
		{&SdyMesh{Axes: []*SdyMeshAxis{{"x", 2}}, DeviceIDs: []int64{1, 0}}, `#sdy.mesh<["x"=2], device_ids=[1, 0]>`},
		{&SdyManualAxes{Axes: []string{"x"}}, `#sdy<manual_axes{"x"}>`},
	} {
		if got := c.attr.String(); got != c.want {
			t.Errorf("String() = %s, want %s", got, c.want)
		}
	}
}
