package mlirbc

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// decoder reads the primitive encodings of the format from one byte range
// of the input. Every read is bounds-checked; a failure panics with a
// failure that Read turns into an *Error naming the absolute offset.
type decoder struct {
	data []byte
	base int // offset of data[0] in the input
	pos  int
}

func (d *decoder) off() int       { return d.base + d.pos }
func (d *decoder) empty() bool    { return d.pos >= len(d.data) }
func (d *decoder) remaining() int { return len(d.data) - d.pos }

func (d *decoder) fail(format string, args ...any) {
	fail(d.off(), InvalidArgument, format, args...)
}

func (d *decoder) byte() byte {
	if d.empty() {
		d.fail("unexpected end of data")
	}
	b := d.data[d.pos]
	d.pos++
	return b
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(d.remaining()) {
		d.fail("%d bytes needed, %d left", n, d.remaining())
	}
	b := d.data[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return b
}

// sub returns a decoder over the next n bytes and skips them.
func (d *decoder) sub(n uint64) *decoder {
	start := d.off()
	return &decoder{data: d.bytes(n), base: start}
}

// varint reads a PrefixVarInt: the count of trailing zero bits of the first
// byte is the number of bytes that follow; the rest is the little-endian value.
func (d *decoder) varint() uint64 {
	first := d.byte()
	if first&1 != 0 {
		return uint64(first >> 1)
	}
	if first == 0 {
		return binary.LittleEndian.Uint64(d.bytes(8))
	}
	n := bits.TrailingZeros8(first)
	var buf [8]byte
	buf[0] = first
	copy(buf[1:], d.bytes(uint64(n)))
	return binary.LittleEndian.Uint64(buf[:]) >> (n + 1)
}

// svarint reads a zigzag-encoded signed varint.
func (d *decoder) svarint() int64 {
	v := d.varint()
	return int64(v>>1) ^ -int64(v&1)
}

// varintFlag reads a varint whose low bit is a flag.
func (d *decoder) varintFlag() (uint64, bool) {
	v := d.varint()
	return v >> 1, v&1 != 0
}

// count reads a varint that counts elements which take at least one byte
// each, so it cannot exceed what is left; this bounds every allocation by
// the input size.
func (d *decoder) count(what string) int {
	at := d.off()
	n := d.varint()
	if n > uint64(d.remaining()) {
		fail(at, InvalidArgument, "%s count %d exceeds the %d bytes left", what, n, d.remaining())
	}
	return int(n)
}

// index reads a varint that must be below n.
func (d *decoder) index(n int, what string) int {
	at := d.off()
	v := d.varint()
	if v >= uint64(n) {
		fail(at, InvalidArgument, "%s index %d out of range (%d entries)", what, v, n)
	}
	return int(v)
}

// cstring reads a NUL-terminated string.
func (d *decoder) cstring() string {
	i := bytes.IndexByte(d.data[d.pos:], 0)
	if i < 0 {
		d.fail("string has no terminating NUL")
	}
	s := string(d.data[d.pos : d.pos+i])
	d.pos += i + 1
	return s
}

// alignTo skips the 0xCB padding up to the next multiple of align, counted
// from the start of the input, as the writer counts it.
func (d *decoder) alignTo(align uint64) {
	if align == 0 || align&(align-1) != 0 || align > 1<<16 {
		d.fail("alignment %d is not a power of two up to 65536", align)
	}
	for uint64(d.off())%align != 0 {
		if b := d.byte(); b != 0xCB {
			d.fail("alignment padding byte is 0x%02X, want 0xCB", b)
		}
	}
}

// section reads a section header and returns its ID and contents.
func (d *decoder) section() (byte, *decoder) {
	idAndAlign := d.byte()
	n := d.varint()
	id := idAndAlign & 0x7F
	if id >= numSections {
		d.fail("unknown section ID %d", id)
	}
	if idAndAlign&0x80 != 0 {
		d.alignTo(d.varint())
	}
	return id, d.sub(n)
}
