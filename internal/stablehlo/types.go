package stablehlo

import (
	"fmt"
	"strconv"
	"strings"
)

// ElemType is a tensor element type.
type ElemType int

// Element types of tensors, all of which the interpreter runs. ElemInvalid
// marks anything else (f8E8M0FNU, f4E2M1FN, token, ...): such types parse,
// and make Module.Unsupported name them.
const (
	ElemInvalid ElemType = iota
	Bool                 // i1, one byte per element (0 or 1) in Tensor.Data
	I2                   // i2 and i4: one byte per element in Tensor.Data, as numpy holds them
	I4
	I8
	I16
	I32
	I64
	U2 // ui2 and ui4: one byte per element, as numpy holds them
	U4
	U8
	U16
	U32
	U64
	F8E5M2 // the 8-bit floats, see float8.go
	F8E4M3
	F8E3M4
	F8E4M3FN
	F8E4M3FNUZ
	F8E5M2FNUZ
	F8E4M3B11FNUZ
	F16
	BF16
	F32
	F64
	C64  // complex<f32>: real then imaginary part, each a little-endian f32
	C128 // complex<f64>
)

var elemNames = [...]string{
	ElemInvalid: "invalid", Bool: "i1", I2: "i2", I4: "i4", I8: "i8", I16: "i16", I32: "i32", I64: "i64",
	U2: "ui2", U4: "ui4", U8: "ui8", U16: "ui16", U32: "ui32", U64: "ui64",
	F8E5M2: "f8E5M2", F8E4M3: "f8E4M3", F8E3M4: "f8E3M4", F8E4M3FN: "f8E4M3FN", F8E4M3FNUZ: "f8E4M3FNUZ",
	F8E5M2FNUZ: "f8E5M2FNUZ", F8E4M3B11FNUZ: "f8E4M3B11FNUZ",
	F16: "f16", BF16: "bf16", F32: "f32", F64: "f64",
	C64: "complex<f32>", C128: "complex<f64>",
}

var elemSizes = [...]int{
	Bool: 1, I2: 1, I4: 1, I8: 1, I16: 2, I32: 4, I64: 8, U2: 1, U4: 1, U8: 1, U16: 2, U32: 4, U64: 8,
	F8E5M2: 1, F8E4M3: 1, F8E3M4: 1, F8E4M3FN: 1, F8E4M3FNUZ: 1, F8E5M2FNUZ: 1, F8E4M3B11FNUZ: 1,
	F16: 2, BF16: 2, F32: 4, F64: 8, C64: 8, C128: 16,
}

// String returns the MLIR spelling, e.g. "f32", "ui8", "i1", "complex<f32>".
func (e ElemType) String() string {
	if e < 0 || int(e) >= len(elemNames) {
		return "invalid"
	}
	return elemNames[e]
}

// ByteSize is the size of one element in Tensor.Data.
func (e ElemType) ByteSize() int {
	if e < 0 || int(e) >= len(elemSizes) {
		return 0
	}
	return elemSizes[e]
}

// ParseElemType maps an MLIR element type name to an ElemType.
func ParseElemType(s string) (ElemType, bool) {
	for i, n := range elemNames {
		if n == s && i != int(ElemInvalid) {
			return ElemType(i), true
		}
	}
	return ElemInvalid, false
}

// bits is the width in bits (1 for Bool).
func (e ElemType) bits() int {
	switch e {
	case Bool:
		return 1
	case I2, U2:
		return 2
	case I4, U4:
		return 4
	}
	return 8 * e.ByteSize()
}

// isSubByte reports the integer types narrower than their byte in
// Tensor.Data.
func (e ElemType) isSubByte() bool { return e == I2 || e == I4 || e == U2 || e == U4 }

func (e ElemType) isFloat() bool    { return e >= F8E5M2 && e <= F64 }
func (e ElemType) isSigned() bool   { return e >= I2 && e <= I64 }
func (e ElemType) isUnsigned() bool { return e >= U2 && e <= U64 }
func (e ElemType) isInt() bool      { return e.isSigned() || e.isUnsigned() }
func (e ElemType) isComplex() bool  { return e == C64 || e == C128 }

// isNarrowFloat reports a float type narrower than float32, held in
// float32 and rounded after each op.
func (e ElemType) isNarrowFloat() bool { return e.isFloat() && e != F32 && e != F64 }

// runnable reports whether the interpreter computes with e.
func (e ElemType) runnable() bool { return e > ElemInvalid && int(e) < len(elemNames) }

// TensorType is a ranked tensor type with static shape.
type TensorType struct {
	Elem  ElemType
	Shape []int64
	// raw keeps the original spelling of types with no ElemType (e.g.
	// "tensor<4xf8E4M3FN>", "!stablehlo.token") so errors can name them.
	raw string
}

// NumElements is the product of the dimensions (1 for a scalar).
func (t TensorType) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// String prints the type in MLIR syntax, e.g. "tensor<2x3xf32>".
// byteSize is how many bytes a value of type t takes in a Tensor.
func (t TensorType) byteSize() int64 { return t.NumElements() * int64(t.Elem.ByteSize()) }

func (t TensorType) String() string {
	if t.raw != "" {
		return t.raw
	}
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.Shape {
		b.WriteString(strconv.FormatInt(d, 10))
		b.WriteByte('x')
	}
	b.WriteString(t.Elem.String())
	b.WriteByte('>')
	return b.String()
}

// Equal reports whether two types have the same element type and shape.
func (t TensorType) Equal(o TensorType) bool {
	if t.Elem != o.Elem || len(t.Shape) != len(o.Shape) || t.raw != o.raw {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i] != o.Shape[i] {
			return false
		}
	}
	return true
}

// supported reports whether the interpreter runs values of type t.
func (t TensorType) supported() bool { return t.Elem.runnable() && t.raw == "" }

// Tensor is a dense row-major little-endian array. Bool uses one byte per element.
type Tensor struct {
	Type TensorType
	Data []byte
}

// NewTensor checks that data has the size t needs and wraps it.
func NewTensor(t TensorType, data []byte) (*Tensor, error) {
	if !t.supported() {
		return nil, unimplementedf("element type %s is not supported", t)
	}
	if want := t.byteSize(); int64(len(data)) != want {
		return nil, invalidf("%s needs %d bytes, got %d", t, want, len(data))
	}
	return &Tensor{Type: t, Data: data}, nil
}

func (t *Tensor) String() string { return fmt.Sprintf("%s(%d bytes)", t.Type, len(t.Data)) }
