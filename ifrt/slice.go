package ifrt

import (
	"context"
	"encoding/binary"
)

// Element is the Go types whose slices MakeArrayFromSlice and ArrayToSlice move to
// and from arrays, one per element type:
//
//	bool       PRED
//	int8..64   S8, S16, S32, S64
//	uint8..64  U8, U16, U32, U64
//	Float16    F16  (IEEE binary16 bits)
//	BFloat16   BF16 (bfloat16 bits)
//	float32    F32
//	float64    F64
//	complex64  C64
//	complex128 C128
//
// int and uint are absent because their size depends on the platform.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		Float16 | BFloat16 | float32 | float64 | complex64 | complex128
}

// Float16 is an F16 element as its IEEE 754 binary16 bits.
type Float16 uint16

// BFloat16 is a BF16 element as its bits: the upper half of a float32.
type BFloat16 uint16

// DTypeOf returns the element type of T.
func DTypeOf[T Element]() DType {
	var zero T
	switch any(zero).(type) {
	case bool:
		return PRED
	case int8:
		return S8
	case int16:
		return S16
	case int32:
		return S32
	case int64:
		return S64
	case uint8:
		return U8
	case uint16:
		return U16
	case uint32:
		return U32
	case uint64:
		return U64
	case Float16:
		return F16
	case BFloat16:
		return BF16
	case float32:
		return F32
	case float64:
		return F64
	case complex64:
		return C64
	case complex128:
		return C128
	}
	panic("unreachable: Element has no other types")
}

// MakeArrayFromSlice makes an array of the given shape and sharding holding values
// in row-major order, with the element type of T (see Element). len(values) must be
// the shape's element count. It is Client.MakeArrayFromHostBuffer without the byte
// encoding; values may change once it returns.
func MakeArrayFromSlice[T Element](ctx context.Context, c Client, values []T, shape Shape, sharding Sharding) (Array, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	if n := shape.NumElements(); int64(len(values)) != n {
		return nil, Errorf(InvalidArgument, "ifrt: %d values for shape %v, which has %d elements", len(values), shape, n)
	}
	spec := ArraySpec{DType: DTypeOf[T](), Shape: shape, Sharding: sharding}
	return c.MakeArrayFromHostBuffer(ctx, encodeSlice(values), spec, nil)
}

// ArrayToSlice copies a fully addressable array to a new slice, its elements in
// row-major order. T must be the Go type of the array's element type (see
// Element); otherwise the error is InvalidArgument.
func ArrayToSlice[T Element](ctx context.Context, a Array) ([]T, error) {
	if want := DTypeOf[T](); a.DType() != want {
		return nil, Errorf(InvalidArgument, "ifrt: array of %v%v read as %v", a.DType(), a.Shape(), want)
	}
	buf, err := ArrayBytes(ctx, a)
	if err != nil {
		return nil, err
	}
	return decodeSlice[T](buf, a.Shape().NumElements()), nil
}

// ArrayBytes copies a fully addressable array, dense and row-major, to a new
// buffer that nothing else refers to.
func ArrayBytes(ctx context.Context, a Array) ([]byte, error) {
	n, err := a.Shape().ByteSize(a.DType())
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if err := a.CopyToHostBuffer(ctx, buf, nil); err != nil {
		return nil, err
	}
	return buf, nil
}

// Host buffers hold elements in little-endian order, as on every platform the
// backends run on.

func encodeSlice[T Element](values []T) []byte {
	switch v := any(values).(type) {
	case []Float16:
		return encode16(v)
	case []BFloat16:
		return encode16(v)
	}
	out, err := binary.Append(nil, binary.LittleEndian, values)
	if err != nil {
		panic("unreachable: every other Element has a fixed size: " + err.Error())
	}
	return out
}

func decodeSlice[T Element](buf []byte, n int64) []T {
	out := make([]T, n)
	switch v := any(out).(type) {
	case []Float16:
		decode16(v, buf)
	case []BFloat16:
		decode16(v, buf)
	default:
		if _, err := binary.Decode(buf, binary.LittleEndian, out); err != nil {
			panic("unreachable: the buffer was sized for the slice: " + err.Error())
		}
	}
	return out
}

// encode16 and decode16 spare the 16-bit float types encoding/binary's reflection
// path, which it takes for named types.
func encode16[T Float16 | BFloat16](v []T) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(out[2*i:], uint16(x))
	}
	return out
}

func decode16[T Float16 | BFloat16](dst []T, buf []byte) {
	for i := range dst {
		dst[i] = T(binary.LittleEndian.Uint16(buf[2*i:]))
	}
}
