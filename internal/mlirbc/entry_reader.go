package mlirbc

// entryReader is what dialect decoders read with: the primitives of the
// format plus references into the file's string, attribute, type and
// resource tables (MLIR's DialectBytecodeReader).
type entryReader struct {
	*decoder
	f *file
}

func (r *entryReader) attr() Attribute {
	at := r.off()
	return r.f.attribute(int(min(r.varint(), 1<<31)), at)
}

// optAttr reads an attribute reference whose low bit says it is present.
func (r *entryReader) optAttr() Attribute {
	at := r.off()
	i, ok := r.varintFlag()
	if !ok {
		return nil
	}
	return r.f.attribute(int(min(i, 1<<31)), at)
}

func (r *entryReader) typ() Type {
	at := r.off()
	return r.f.typeAt(int(min(r.varint(), 1<<31)), at)
}

func (r *entryReader) str() string {
	at := r.off()
	return r.f.stringAt(int(min(r.varint(), 1<<31)), at)
}

func (r *entryReader) attrs() []Attribute { return readList(r, "attribute list", r.attr) }

func (r *entryReader) types() []Type { return readList(r, "type list", r.typ) }

func (r *entryReader) svarints() []int64 { return readList(r, "integer list", r.svarint) }

// readList reads a count, then that many items with read.
func readList[T any](r *entryReader, what string, read func() T) []T {
	out := make([]T, r.count(what))
	for i := range out {
		out[i] = read()
	}
	return out
}

// shape reads a list of dimension sizes.
func (r *entryReader) shape() []int64 { return r.svarints() }

func (r *entryReader) bool() bool {
	switch b := r.byte(); b {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail("bool byte is %d", b)
	}
	return false
}

func (r *entryReader) blob() []byte { return r.bytes(r.varint()) }

// apint reads an integer of a known bit width (APInt): one byte up to 8
// bits, a signed varint up to 64, else a count of 64-bit words each a signed
// varint. The result is masked to the width.
func (r *entryReader) apint(width int) []uint64 {
	var words []uint64
	switch {
	case width <= 8:
		words = []uint64{uint64(r.byte())}
	case width <= 64:
		words = []uint64{uint64(r.svarint())}
	default:
		at := r.off()
		n := r.count("integer word")
		if n > (width+63)/64 {
			fail(at, InvalidArgument, "%d words for a %d-bit integer", n, width)
		}
		// Words past the active ones are zero, as in APInt.
		words = make([]uint64, max(n, 1))
		for i := 0; i < n; i++ {
			words[i] = uint64(r.svarint())
		}
		if n == (width+63)/64 && width%64 != 0 {
			words[n-1] = maskBits(words[n-1], width%64)
		}
		return words
	}
	if width < 64 {
		words[0] = maskBits(words[0], width)
	}
	return words
}

// float64 reads an IEEE double (an APFloat of known double semantics).
func (r *entryReader) float64() float64 {
	return floatBitsToFloat64(&FloatType{Name: "f64"}, r.apint(64))
}

// denseData reads the blob of a dense elements attribute of the given shape
// and element type. i1 data may be bit-packed, or a 0xFF / 0x00 splat; it is
// returned one byte per element (a splat as one byte).
func (r *entryReader) denseData(shape []int64, elem Type) []byte {
	blob := r.blob()
	if !isI1(elem) {
		return blob
	}
	n := int64(1)
	for _, d := range shape {
		if d < 0 || (d > 0 && n > (1<<40)/d) {
			return blob
		}
		n *= d
	}
	if len(blob) == 1 && blob[0] == 0xFF {
		return []byte{1}
	}
	if packed := (n + 7) / 8; int64(len(blob)) == packed && int64(len(blob)) != n {
		out := make([]byte, n)
		for i := range out {
			out[i] = blob[i/8] >> (i % 8) & 1
		}
		return out
	}
	return blob
}

func isI1(t Type) bool {
	switch t := t.(type) {
	case *IntegerType:
		return t.Width == 1
	case *VHLOType:
		return t.Name == "i1"
	}
	return false
}

// resource reads a reference to a dialect resource.
func (r *entryReader) resource() *Resource {
	at := r.off()
	i := r.varint()
	if i >= uint64(len(r.f.dialectResources)) {
		fail(at, InvalidArgument, "resource index %d out of range (%d resources)", i, len(r.f.dialectResources))
	}
	return r.f.dialectResources[i]
}
