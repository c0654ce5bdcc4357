package ifrt

import "fmt"

// DType is an element type. The numbering is IFRT's DTypeProto.Kind, which equals
// xla.PrimitiveType for most types but not all (see PrimitiveType).
type DType int32

// The element types.
const (
	InvalidDType  DType = 0
	PRED          DType = 1
	S8            DType = 2
	S16           DType = 3
	S32           DType = 4
	S64           DType = 5
	U8            DType = 6
	U16           DType = 7
	U32           DType = 8
	U64           DType = 9
	F16           DType = 10
	F32           DType = 11
	F64           DType = 12
	C64           DType = 15
	BF16          DType = 16
	TOKEN         DType = 17
	C128          DType = 18
	F8E5M2        DType = 19
	F8E4M3FN      DType = 20
	S4            DType = 21
	U4            DType = 22
	F8E4M3B11FNUZ DType = 23
	F8E5M2FNUZ    DType = 24
	F8E4M3FNUZ    DType = 25
	S2            DType = 26
	U2            DType = 27
	F8E4M3        DType = 28
	F8E3M4        DType = 29
	F4E2M1FN      DType = 30
	F8E8M0FNU     DType = 31
	STRING        DType = 99
)

type dtypeInfo struct {
	name      string // XLA's lower-case name
	bits      int    // bits per element on device; 0 for TOKEN and STRING
	primitive int32  // xla.PrimitiveType number; -1 where XLA has none
}

var dtypes = map[DType]dtypeInfo{
	PRED:          {"pred", 8, 1},
	S2:            {"s2", 2, 26},
	S4:            {"s4", 4, 21},
	S8:            {"s8", 8, 2},
	S16:           {"s16", 16, 3},
	S32:           {"s32", 32, 4},
	S64:           {"s64", 64, 5},
	U2:            {"u2", 2, 27},
	U4:            {"u4", 4, 22},
	U8:            {"u8", 8, 6},
	U16:           {"u16", 16, 7},
	U32:           {"u32", 32, 8},
	U64:           {"u64", 64, 9},
	F16:           {"f16", 16, 10},
	BF16:          {"bf16", 16, 16},
	F32:           {"f32", 32, 11},
	F64:           {"f64", 64, 12},
	C64:           {"c64", 64, 15},
	C128:          {"c128", 128, 18},
	F8E5M2:        {"f8e5m2", 8, 19},
	F8E4M3FN:      {"f8e4m3fn", 8, 20},
	F8E4M3B11FNUZ: {"f8e4m3b11fnuz", 8, 23},
	F8E5M2FNUZ:    {"f8e5m2fnuz", 8, 24},
	F8E4M3FNUZ:    {"f8e4m3fnuz", 8, 25},
	F8E4M3:        {"f8e4m3", 8, 28},
	F8E3M4:        {"f8e3m4", 8, 29},
	F4E2M1FN:      {"f4e2m1fn", 4, 32},
	F8E8M0FNU:     {"f8e8m0fnu", 8, 33},
	TOKEN:         {"token", 0, 17},
	STRING:        {"string", 0, -1},
}

// AllDTypes returns every valid element type, in numbering order.
func AllDTypes() []DType {
	out := make([]DType, 0, len(dtypes))
	for d := DType(0); d <= STRING; d++ {
		if _, ok := dtypes[d]; ok {
			out = append(out, d)
		}
	}
	return out
}

// Valid reports whether d is one of the element types above.
func (d DType) Valid() bool { _, ok := dtypes[d]; return ok }

// String returns XLA's name for d, such as "f32" or "bf16".
func (d DType) String() string {
	if info, ok := dtypes[d]; ok {
		return info.name
	}
	return fmt.Sprintf("dtype(%d)", int32(d))
}

// BitWidth returns the bits one element occupies on a device; 0 for TOKEN, STRING and
// invalid types.
func (d DType) BitWidth() int { return dtypes[d].bits }

// HostByteSize returns the bytes one element occupies in a host buffer. Sub-byte
// types (S2, S4, U2, U4, F4E2M1FN) use one byte per element there, as numpy does.
// It is 0 for TOKEN, STRING and invalid types.
func (d DType) HostByteSize() int {
	return (dtypes[d].bits + 7) / 8
}

// IsFloat reports whether d is a real floating-point type.
func (d DType) IsFloat() bool {
	switch d {
	case F16, BF16, F32, F64, F8E5M2, F8E4M3FN, F8E4M3B11FNUZ, F8E5M2FNUZ, F8E4M3FNUZ,
		F8E4M3, F8E3M4, F4E2M1FN, F8E8M0FNU:
		return true
	}
	return false
}

// IsComplex reports whether d is C64 or C128.
func (d DType) IsComplex() bool { return d == C64 || d == C128 }

// IsInteger reports whether d is a signed or unsigned integer type.
func (d DType) IsInteger() bool { return d.IsSigned() || d.IsUnsigned() }

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool {
	return d == S2 || d == S4 || d == S8 || d == S16 || d == S32 || d == S64
}

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool {
	return d == U2 || d == U4 || d == U8 || d == U16 || d == U32 || d == U64
}

// PrimitiveType returns d's xla.PrimitiveType number. The two numberings differ for
// F4E2M1FN (32), F8E8M0FNU (33) and STRING (none: ok is false).
func (d DType) PrimitiveType() (pt int32, ok bool) {
	info, found := dtypes[d]
	if !found || info.primitive < 0 {
		return 0, false
	}
	return info.primitive, true
}

// DTypeFromPrimitiveType is the inverse of DType.PrimitiveType.
func DTypeFromPrimitiveType(pt int32) (DType, bool) {
	for d, info := range dtypes {
		if info.primitive == pt {
			return d, true
		}
	}
	return InvalidDType, false
}

// ParseDType returns the type named by XLA's name, such as "bf16".
func ParseDType(name string) (DType, error) {
	for d, info := range dtypes {
		if info.name == name {
			return d, nil
		}
	}
	return InvalidDType, Errorf(InvalidArgument, "ifrt: unknown dtype %q", name)
}
