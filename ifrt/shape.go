package ifrt

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
)

// Shape is the extent of each dimension of an array, major to minor. A nil or empty
// Shape is a scalar. Treat a Shape as immutable once it is shared.
type Shape []int64

// Validate reports a negative dimension or an element count that overflows int64.
func (s Shape) Validate() error {
	_, err := s.checkedNumElements()
	return err
}

func (s Shape) checkedNumElements() (int64, error) {
	n := int64(1)
	for i, d := range s {
		if d < 0 {
			return 0, Errorf(InvalidArgument, "ifrt: shape %v has negative dimension %d at %d", s, d, i)
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, Errorf(InvalidArgument, "ifrt: shape %v has more elements than fit in int64", s)
		}
		n = int64(lo)
	}
	return n, nil
}

// NumElements returns the product of the dimensions (1 for a scalar). Call Validate
// first on untrusted shapes: an invalid shape yields -1.
func (s Shape) NumElements() int64 {
	n, err := s.checkedNumElements()
	if err != nil {
		return -1
	}
	return n
}

// ByteSize returns the dense host-buffer size of an array of this shape and dtype,
// or an error if it overflows or the dtype has no fixed size.
func (s Shape) ByteSize(d DType) (int64, error) {
	n, err := s.checkedNumElements()
	if err != nil {
		return 0, err
	}
	size := int64(d.HostByteSize())
	if size == 0 {
		if d == TOKEN {
			return 0, nil
		}
		return 0, Errorf(InvalidArgument, "ifrt: dtype %v has no fixed byte size", d)
	}
	if n > math.MaxInt64/size {
		return 0, Errorf(InvalidArgument, "ifrt: %v%v is larger than int64 bytes", d, s)
	}
	return n * size, nil
}

// Equal reports whether s and o have the same dimensions.
func (s Shape) Equal(o Shape) bool { return slices.Equal(s, o) }

// Clone returns a copy of s that does not share memory with it.
func (s Shape) Clone() Shape { return slices.Clone(s) }

func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Layout is the order of dimensions in memory, minor to major. A nil *Layout means the
// backend's default, which for every backend here is dense row-major.
type Layout struct {
	MinorToMajor []int64
}

// RowMajorLayout returns the dense row-major layout for rank dimensions.
func RowMajorLayout(rank int) *Layout {
	m := make([]int64, rank)
	for i := range m {
		m[i] = int64(rank - 1 - i)
	}
	return &Layout{MinorToMajor: m}
}

// IsRowMajor reports whether l is nil or the dense row-major order.
func (l *Layout) IsRowMajor() bool {
	if l == nil {
		return true
	}
	for i, d := range l.MinorToMajor {
		if d != int64(len(l.MinorToMajor)-1-i) {
			return false
		}
	}
	return true
}

// Range is the half-open interval [Start, End) of indices along one dimension.
type Range struct{ Start, End int64 }

// Len returns the number of indices in r.
func (r Range) Len() int64 { return r.End - r.Start }

// IndexDomain is the part of an array one shard holds: one Range per dimension.
type IndexDomain []Range

// Shape returns the extent of each range.
func (d IndexDomain) Shape() Shape {
	s := make(Shape, len(d))
	for i, r := range d {
		s[i] = r.Len()
	}
	return s
}

// FullDomain returns the domain covering all of shape.
func FullDomain(shape Shape) IndexDomain {
	d := make(IndexDomain, len(shape))
	for i, n := range shape {
		d[i] = Range{0, n}
	}
	return d
}

func (d IndexDomain) String() string {
	parts := make([]string, len(d))
	for i, r := range d {
		parts[i] = fmt.Sprintf("%d:%d", r.Start, r.End)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
