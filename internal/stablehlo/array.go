package stablehlo

import (
	"encoding/binary"
	"math"
	"slices"
)

// array is the interpreter's value: one typed slice chosen by the element
// class, so ops decode nothing per element. f16/bf16 live in f32 (rounded),
// all signed ints in i (sign-extended), all unsigned ints in u (masked),
// both complex types in c (complex<f32> with each part rounded to f32).
type array struct {
	t   TensorType
	f32 []float32
	f64 []float64
	i   []int64
	u   []uint64
	b   []bool
	c   []complex128

	// shared marks storage that another value (or the caller's Tensor) may
	// also reference; such storage is never reused for an op's result.
	shared bool
}

type elemClass int

const (
	classF32 elemClass = iota
	classF64
	classInt
	classUint
	classBool
	classComplex
)

func (e ElemType) class() elemClass {
	switch {
	case e == F64:
		return classF64
	case e.isFloat():
		return classF32
	case e.isSigned():
		return classInt
	case e.isUnsigned():
		return classUint
	case e.isComplex():
		return classComplex
	}
	return classBool
}

func newArray(t TensorType) *array {
	n := int(t.NumElements())
	if n == 1 {
		return newScalarArray(t)
	}
	a := &array{t: t}
	switch t.Elem.class() {
	case classF32:
		a.f32 = make([]float32, n)
	case classF64:
		a.f64 = make([]float64, n)
	case classInt:
		a.i = make([]int64, n)
	case classUint:
		a.u = make([]uint64, n)
	case classComplex:
		a.c = make([]complex128, n)
	default:
		a.b = make([]bool, n)
	}
	return a
}

// newScalarArray is newArray for one element, in one allocation that holds
// the header and the element: loops of scalar arithmetic make many.
func newScalarArray(t TensorType) *array {
	switch t.Elem.class() {
	case classF32:
		return scalarWith(t, func(a *array) *[]float32 { return &a.f32 })
	case classF64:
		return scalarWith(t, func(a *array) *[]float64 { return &a.f64 })
	case classInt:
		return scalarWith(t, func(a *array) *[]int64 { return &a.i })
	case classUint:
		return scalarWith(t, func(a *array) *[]uint64 { return &a.u })
	case classComplex:
		return scalarWith(t, func(a *array) *[]complex128 { return &a.c })
	}
	return scalarWith(t, func(a *array) *[]bool { return &a.b })
}

func scalarWith[T any](t TensorType, storage func(*array) *[]T) *array {
	s := &struct {
		a array
		v [1]T
	}{a: array{t: t}}
	*storage(&s.a) = s.v[:]
	return &s.a
}

func (a *array) size() int {
	switch a.t.Elem.class() {
	case classF32:
		return len(a.f32)
	case classF64:
		return len(a.f64)
	case classInt:
		return len(a.i)
	case classUint:
		return len(a.u)
	case classComplex:
		return len(a.c)
	}
	return len(a.b)
}

// withType returns a shallow copy sharing storage but with another shape
// (same element type); used by reshape.
func (a *array) withType(t TensorType) *array {
	a.markShared()
	c := *a
	c.t = t
	return &c
}

// markShared flags a's storage as referenced from elsewhere. Arrays cached
// in the Module (constants) are shared from the start, so concurrent Runs
// only ever read the flag on them.
func (a *array) markShared() {
	if !a.shared {
		a.shared = true
	}
}

// signExtend wraps v to the width of a signed integer type.
func signExtend(e ElemType, v int64) int64 {
	s := uint(64 - e.bits())
	return v << s >> s
}

// maskUint wraps v to the width of an unsigned integer type.
func maskUint(e ElemType, v uint64) uint64 { return v & widthMask(e.bits()) }

// normalize wraps integers to their width and rounds narrow floats after an
// op computed them in a wider type.
func (a *array) normalize() {
	switch e := a.t.Elem; {
	case e.storedExactly():
	case e == C64:
		roundC64(a.c)
	case e.isSigned(): // one shift pair for the whole array, not a switch per element
		s := uint(64 - e.bits())
		for k, v := range a.i {
			a.i[k] = v << s >> s
		}
	case e.isUnsigned():
		m := widthMask(e.bits())
		for k, v := range a.u {
			a.u[k] = v & m
		}
	default:
		roundNarrow(e, a.f32)
	}
}

// normalizeRange normalizes a's elements [lo, hi) without making a view
// when there is nothing to do (a run of a scatter or a fold is often one
// element).
func normalizeRange(a *array, lo, hi int) {
	if !a.t.Elem.storedExactly() {
		flat(a, lo, hi).normalize()
	}
}

// storedExactly says whether every value of the storage is one of e's, so
// that normalize leaves it as it is.
func (e ElemType) storedExactly() bool {
	return e == I64 || e == U64 || e == F32 || e == F64 || e == Bool || e == C128
}

func decodeTensor(t *Tensor) *array {
	a := newArray(t.Type)
	d := t.Data
	le := binary.LittleEndian
	switch t.Type.Elem {
	case Bool:
		for k := range a.b {
			a.b[k] = d[k] != 0
		}
	case I8, I4, I2:
		decodeWords[int8](d, a.i)
	case I16:
		decodeWords[int16](d, a.i)
	case I32:
		decodeWords[int32](d, a.i)
	case I64:
		decodeWords[int64](d, a.i)
	case U8, U4, U2:
		decodeWords[uint8](d, a.u)
	case U16:
		decodeWords[uint16](d, a.u)
	case U32:
		decodeWords[uint32](d, a.u)
	case U64:
		decodeWords[uint64](d, a.u)
	case F16:
		for k := range a.f32 {
			a.f32[k] = f16ToF32(le.Uint16(d[2*k:]))
		}
	case BF16:
		for k := range a.f32 {
			a.f32[k] = bf16ToF32(le.Uint16(d[2*k:]))
		}
	case F32:
		decodeWords[float32](d, a.f32)
	case F64:
		decodeWords[float64](d, a.f64)
	case C64:
		for k := range a.c {
			a.c[k] = complex(float64(math.Float32frombits(le.Uint32(d[8*k:]))), float64(math.Float32frombits(le.Uint32(d[8*k+4:]))))
		}
	case C128:
		for k := range a.c {
			a.c[k] = complex(math.Float64frombits(le.Uint64(d[16*k:])), math.Float64frombits(le.Uint64(d[16*k+8:])))
		}
	default:
		if f, ok := f8Formats[t.Type.Elem]; ok {
			for k := range a.f32 {
				a.f32[k] = f.decode(d[k])
			}
		}
	}
	if t.Type.Elem.isSubByte() {
		a.normalize() // only the low bits of each byte count
	}
	return a
}

func encodeArray(a *array) *Tensor {
	n := a.size()
	d := make([]byte, n*a.t.Elem.ByteSize())
	le := binary.LittleEndian
	switch a.t.Elem {
	case Bool:
		for k, v := range a.b {
			if v {
				d[k] = 1
			}
		}
	case I8, I4, I2:
		encodeWords[int8](d, a.i)
	case I16:
		encodeWords[int16](d, a.i)
	case I32:
		encodeWords[int32](d, a.i)
	case I64:
		encodeWords[int64](d, a.i)
	case U8, U4, U2:
		encodeWords[uint8](d, a.u)
	case U16:
		encodeWords[uint16](d, a.u)
	case U32:
		encodeWords[uint32](d, a.u)
	case U64:
		encodeWords[uint64](d, a.u)
	case F16:
		for k, v := range a.f32 {
			le.PutUint16(d[2*k:], f32ToF16(v))
		}
	case BF16:
		for k, v := range a.f32 {
			le.PutUint16(d[2*k:], f32ToBF16(v))
		}
	case F32:
		encodeWords[float32](d, a.f32)
	case F64:
		encodeWords[float64](d, a.f64)
	case C64:
		for k, v := range a.c {
			le.PutUint32(d[8*k:], math.Float32bits(float32(real(v))))
			le.PutUint32(d[8*k+4:], math.Float32bits(float32(imag(v))))
		}
	case C128:
		for k, v := range a.c {
			le.PutUint64(d[16*k:], math.Float64bits(real(v)))
			le.PutUint64(d[16*k+8:], math.Float64bits(imag(v)))
		}
	default:
		if f, ok := f8Formats[a.t.Elem]; ok {
			for k, v := range a.f32 {
				d[k] = f.encode(v)
			}
		}
	}
	return &Tensor{Type: a.t, Data: d}
}

// word is a fixed-size element of a Tensor's encoding; number is the
// storage of an array of its class.
type (
	word interface {
		int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64
	}
	number interface {
		int64 | uint64 | float32 | float64
	}
)

// decodeWords fills dst from the little-endian words of type W in d; an
// integer word is widened (sign-extended when signed). The callers size d
// from the tensor type, so d always holds len(dst) words.
func decodeWords[W word, T number](d []byte, dst []T) {
	if w, ok := any(dst).([]W); ok { // same type: decode in place
		if littleEndian {
			copy(wordBytes(w), d)
			return
		}
		_, _ = binary.Decode(d, binary.LittleEndian, w)
		return
	}
	w := make([]W, len(dst))
	_, _ = binary.Decode(d, binary.LittleEndian, w)
	for k, v := range w {
		dst[k] = T(v)
	}
}

// encodeWords writes src into d as little-endian words of type W,
// truncating integers to W's width.
func encodeWords[W word, T number](d []byte, src []T) {
	if w, ok := any(src).([]W); ok {
		if littleEndian {
			copy(d, wordBytes(w))
			return
		}
		_, _ = binary.Encode(d, binary.LittleEndian, w)
		return
	}
	w := make([]W, len(src))
	for k, v := range src {
		w[k] = W(v)
	}
	_, _ = binary.Encode(d, binary.LittleEndian, w)
}

// takeStrided returns the array of type t whose elements, in row-major
// order over shape, are a's elements at base + sum(idx[d]*step[d]). It
// copies whole runs where the innermost dimensions are contiguous in a and
// fills them where a repeats one element.
func takeStrided(a *array, t TensorType, shape []int64, step []int, base int) *array {
	out := newArray(t)
	copyStrided(out, 0, a, shape, step, base)
	return out
}

// fillRuns sets dst, which holds exactly shape's elements, to
// src[base + sum(idx[d]*step[d])] for every multi-index of shape in
// row-major order.
func fillRuns[T any](dst, src []T, shape []int64, step []int, base int) {
	if transposeTiles(dst, src, shape, step, base) {
		return
	}
	forEachRun(shape, step, base, func(k, pos, n, step int) {
		run := dst[k : k+n]
		switch step {
		case 1:
			copyPreemptible(run, src[pos:pos+n])
		case 0:
			v := src[pos]
			for j := range run {
				run[j] = v
			}
		default:
			for j := range run {
				run[j] = src[pos]
				pos += step
			}
		}
	})
}

// transposeTiles does fillRuns's work, and reports that it did, where the
// innermost dimension strides through src and another is contiguous in it
// (a transpose): it goes over those two in 16×16 tiles, so that the 16
// source lines a tile reads serve all of its rows, where the plain walk
// reads a line per element. Small copies and others go the plain way.
func transposeTiles[T any](dst, src []T, shape []int64, step []int, base int) bool {
	const tile = 16
	in := len(shape) - 1
	if len(dst) < 1<<12 || in < 1 || step[in] == 0 || step[in] == 1 || shape[in] < tile {
		return false
	}
	q := in - 1
	for q >= 0 && (step[q] != 1 || shape[q] < tile) {
		q--
	}
	if q < 0 {
		return false
	}
	dstStep := strides(shape)
	outer := slices.Clone(shape)
	outer[q], outer[in] = 1, 1
	Q, N, s, dq := int(shape[q]), int(shape[in]), step[in], dstStep[q]
	forEachIndex(outer, func(idx []int64) {
		from, to := base, 0
		for d, x := range idx {
			from += int(x) * step[d]
			to += int(x) * dstStep[d]
		}
		for i0 := 0; i0 < Q; i0 += tile {
			for j0 := 0; j0 < N; j0 += tile {
				j1 := min(N, j0+tile)
				for i := i0; i < min(Q, i0+tile); i++ {
					p := from + i + j0*s
					for j, row := 0, dst[to+i*dq+j0:to+i*dq+j1]; j < len(row); j++ {
						row[j] = src[p]
						p += s
					}
				}
			}
		}
	})
	return true
}

// copyStrided sets dst's elements at..at+prod(shape)-1 to src's elements at
// base + sum(idx[d]*step[d]) in row-major order over shape; dst and src have
// the same element class.
func copyStrided(dst *array, at int, src *array, shape []int64, step []int, base int) {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	switch src.t.Elem.class() {
	case classF32:
		fillRuns(dst.f32[at:at+n], src.f32, shape, step, base)
	case classF64:
		fillRuns(dst.f64[at:at+n], src.f64, shape, step, base)
	case classInt:
		fillRuns(dst.i[at:at+n], src.i, shape, step, base)
	case classUint:
		fillRuns(dst.u[at:at+n], src.u, shape, step, base)
	case classComplex:
		fillRuns(dst.c[at:at+n], src.c, shape, step, base)
	default:
		fillRuns(dst.b[at:at+n], src.b, shape, step, base)
	}
}

// forEachRun walks the multi-indices of shape in row-major order, mapped to
// base + sum(idx[d]*step[d]), as runs: f(k, pos, n, s) says that indices
// k, ..., k+n-1 map to pos, pos+s, ..., pos+(n-1)*s. Inner dimensions whose
// steps continue one another make one run.
func forEachRun(shape []int64, step []int, base int, f func(k, pos, n, step int)) {
	for _, d := range shape {
		if d == 0 {
			return
		}
	}
	rank := len(shape)
	if rank == 0 {
		f(0, base, 1, 0)
		return
	}
	inner, innerStep := int(shape[rank-1]), step[rank-1]
	outer := rank - 1
	for outer > 0 && step[outer-1] == innerStep*inner {
		outer--
		inner *= int(shape[outer])
	}
	cur := make([]int, outer)
	pos := base
	for k := 0; ; k += inner {
		f(k, pos, inner, innerStep)
		d := outer - 1
		for ; d >= 0; d-- {
			cur[d]++
			pos += step[d]
			if cur[d] < int(shape[d]) {
				break
			}
			pos -= step[d] * cur[d]
			cur[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// copyElem sets dst[di] = src[si]; both arrays have the same element class.
func copyElem(dst *array, di int, src *array, si int) {
	switch dst.t.Elem.class() {
	case classF32:
		dst.f32[di] = src.f32[si]
	case classF64:
		dst.f64[di] = src.f64[si]
	case classInt:
		dst.i[di] = src.i[si]
	case classUint:
		dst.u[di] = src.u[si]
	case classComplex:
		dst.c[di] = src.c[si]
	default:
		dst.b[di] = src.b[si]
	}
}

// clone returns a deep copy.
func (a *array) clone() *array {
	c := &array{t: a.t} // not shared: the copy owns its storage
	c.f32 = clonePreemptible(a.f32)
	c.f64 = clonePreemptible(a.f64)
	c.i = clonePreemptible(a.i)
	c.u = clonePreemptible(a.u)
	c.b = clonePreemptible(a.b)
	c.c = clonePreemptible(a.c)
	return c
}

// intAt reads element k of an integer (or bool) array as int64; used for
// indices, which may be any integer type.
func (a *array) intAt(k int) int64 {
	switch a.t.Elem.class() {
	case classInt:
		return a.i[k]
	case classUint:
		return int64(a.u[k])
	case classBool:
		if a.b[k] {
			return 1
		}
		return 0
	case classF32:
		return int64(a.f32[k])
	case classComplex:
		return int64(real(a.c[k]))
	}
	return int64(a.f64[k])
}

// setInteger and setFloat store element k from a value of another class,
// converting as convert does (a float to an integer through floatToInt and
// floatToUint). The caller normalizes narrow integers.
func setInteger[T int64 | uint64](a *array, k int, v T) {
	switch a.t.Elem.class() {
	case classF32:
		a.f32[k] = float32(v)
	case classF64:
		a.f64[k] = float64(v)
	case classInt:
		a.i[k] = int64(v)
	case classUint:
		a.u[k] = uint64(v)
	case classComplex:
		a.c[k] = complex(float64(v), 0)
	default:
		a.b[k] = v != 0
	}
}

func (a *array) setFloat(k int, v float64) {
	switch a.t.Elem.class() {
	case classF32:
		a.f32[k] = float32(v)
	case classF64:
		a.f64[k] = v
	case classInt:
		a.i[k] = floatToInt(v, a.t.Elem)
	case classUint:
		a.u[k] = floatToUint(v, a.t.Elem)
	case classComplex:
		a.c[k] = complex(v, 0)
	default:
		a.b[k] = v != 0
	}
}

// roundC64 rounds each part of complex<f32> values computed in complex128.
func roundC64(c []complex128) {
	for k, v := range c {
		c[k] = complex(float64(float32(real(v))), float64(float32(imag(v))))
	}
}

// strides returns row-major strides for shape.
func strides(shape []int64) []int {
	s := make([]int, len(shape))
	acc := 1
	for d := len(shape) - 1; d >= 0; d-- {
		s[d] = acc
		acc *= int(shape[d])
	}
	return s
}

// forEachIndex calls f with every multi-index of shape in row-major order;
// the slice is reused between calls.
func forEachIndex(shape []int64, f func(idx []int64)) {
	walkIndex(shape, func(idx []int64) bool { f(idx); return true })
}

// walkIndex is forEachIndex that stops when f returns false.
func walkIndex(shape []int64, f func(idx []int64) bool) {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	if n == 0 {
		return
	}
	idx := make([]int64, len(shape))
	for {
		if !f(idx) {
			return
		}
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
