package stablehlo

import (
	"strings"
	"unsafe"
)

// On little-endian hosts the bytes of f32, f64, i64, ui64 and complex<f64>
// tensors already are the interpreter's representation, so inputs are viewed
// in place and results handed out without copying. Viewed inputs are marked
// shared, so no op ever writes to the caller's memory.

var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// viewTensor returns an array over t.Data without copying, or nil when the
// type, alignment or host byte order does not allow it.
func viewTensor(t *Tensor) *array {
	e := t.Type.Elem
	n := int(t.Type.NumElements())
	if !littleEndian || n == 0 || len(t.Data) != n*e.ByteSize() {
		return nil
	}
	p := unsafe.Pointer(unsafe.SliceData(t.Data))
	if uintptr(p)%uintptr(e.ByteSize()) != 0 {
		return nil
	}
	a := &array{t: t.Type, shared: true}
	switch e {
	case F32:
		a.f32 = unsafe.Slice((*float32)(p), n)
	case F64:
		a.f64 = unsafe.Slice((*float64)(p), n)
	case I64:
		a.i = unsafe.Slice((*int64)(p), n)
	case U64:
		a.u = unsafe.Slice((*uint64)(p), n)
	case C128:
		a.c = unsafe.Slice((*complex128)(p), n)
	default:
		return nil
	}
	return a
}

// bytesView returns the storage of an unshared native-layout array as
// bytes, or nil when it must be encoded (copied) instead.
func bytesView(a *array) []byte {
	if !littleEndian || a.shared {
		return nil
	}
	switch a.t.Elem {
	case F32:
		return wordBytes(a.f32)
	case F64:
		return wordBytes(a.f64)
	case I64:
		return wordBytes(a.i)
	case U64:
		return wordBytes(a.u)
	case C128:
		return wordBytes(a.c)
	case Bool:
		if len(a.b) == 0 {
			return nil
		}
		// A Go bool is one byte holding 0 or 1: the encoding of i1.
		return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(a.b))), len(a.b))
	}
	return nil
}

// wordBytes is the memory of s as bytes, nil when s is empty; on a
// little-endian host, the encoding of its elements.
func wordBytes[W word | complex128](s []W) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// sharesStorage says whether a and b hold overlapping element storage.
func sharesStorage(a, b *array) bool {
	as, ae := storageSpan(a)
	bs, be := storageSpan(b)
	return as < ae && bs < be && as < be && bs < ae
}

// storageSpan is the address range of a's elements, empty for none.
func storageSpan(a *array) (start, end uintptr) {
	switch {
	case len(a.f32) > 0:
		return spanOf(a.f32)
	case len(a.f64) > 0:
		return spanOf(a.f64)
	case len(a.i) > 0:
		return spanOf(a.i)
	case len(a.u) > 0:
		return spanOf(a.u)
	case len(a.b) > 0:
		return spanOf(a.b)
	case len(a.c) > 0:
		return spanOf(a.c)
	}
	return 0, 0
}

func spanOf[T any](s []T) (start, end uintptr) {
	start = uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	return start, start + uintptr(len(s))*unsafe.Sizeof(s[0])
}

// newUninitializedArray is newArray for a result whose every element the
// caller writes before anything reads it: large storage comes from the
// allocator as it is, without the clearing that costs as much as writing
// it once more (all_reduce's 64 MiB result: a tenth of its time).
func newUninitializedArray(t TensorType) *array {
	n := int(t.NumElements())
	if n < uninitializedMin {
		return newArray(t)
	}
	a := &array{t: t}
	switch t.Elem.class() {
	case classF32:
		a.f32 = uninitialized[float32](n)
	case classF64:
		a.f64 = uninitialized[float64](n)
	case classInt:
		a.i = uninitialized[int64](n)
	case classUint:
		a.u = uninitialized[uint64](n)
	case classComplex:
		a.c = uninitialized[complex128](n)
	default:
		return newArray(t)
	}
	return a
}

// uninitializedMin is the fewest elements newUninitializedArray leaves
// uncleared: below it clearing costs less than the call.
const uninitializedMin = 1 << 14

// uninitialized returns n elements of memory that holds no pointers and has
// not been cleared. strings.Builder.Grow is the standard library's one way
// to it (the runtime's allocation without clearing); the elements are the
// builder's buffer, which nothing else references.
func uninitialized[T float32 | float64 | int64 | uint64 | complex128](n int) []T {
	var b strings.Builder
	b.Grow(n * int(unsafe.Sizeof(T(0))))
	b.WriteByte(0)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.StringData(b.String()))), n)
}
