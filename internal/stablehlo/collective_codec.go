package stablehlo

import (
	"unsafe"
)

// Collectives move the Tensor encoding of element ranges (little-endian,
// one byte per i1). These helpers encode a range of an array, viewing its
// storage where the encoding is the storage, and decode arriving bytes
// straight into (or onto) a destination range, however the bytes are
// chunked.

// flat returns elements [lo, hi) of a as a rank-1 array sharing a's storage.
func flat(a *array, lo, hi int) *array {
	s := &array{t: TensorType{Elem: a.t.Elem, Shape: []int64{int64(hi - lo)}}, shared: true}
	switch a.t.Elem.class() {
	case classF32:
		s.f32 = a.f32[lo:hi]
	case classF64:
		s.f64 = a.f64[lo:hi]
	case classInt:
		s.i = a.i[lo:hi]
	case classUint:
		s.u = a.u[lo:hi]
	case classComplex:
		s.c = a.c[lo:hi]
	default:
		s.b = a.b[lo:hi]
	}
	return s
}

// allBytes is rangeBytes of all of a.
func allBytes(a *array) []byte { return rangeBytes(a, 0, a.size()) }

// rangeBytes returns the encoding of a's elements [lo, hi): a view of a's
// storage for f32, f64, i64, ui64 and complex<f64> on little-endian hosts, else a new
// buffer. The caller must not modify a while the bytes are in use.
func rangeBytes(a *array, lo, hi int) []byte {
	if lo == hi {
		return []byte{}
	}
	if littleEndian {
		switch a.t.Elem {
		case F32:
			return unsafe.Slice((*byte)(unsafe.Pointer(&a.f32[lo])), 4*(hi-lo))
		case F64:
			return unsafe.Slice((*byte)(unsafe.Pointer(&a.f64[lo])), 8*(hi-lo))
		case I64:
			return unsafe.Slice((*byte)(unsafe.Pointer(&a.i[lo])), 8*(hi-lo))
		case U64:
			return unsafe.Slice((*byte)(unsafe.Pointer(&a.u[lo])), 8*(hi-lo))
		case C128:
			return unsafe.Slice((*byte)(unsafe.Pointer(&a.c[lo])), 16*(hi-lo))
		}
	}
	return encodeArray(flat(a, lo, hi)).Data
}

// elementWriter is an io.Writer for the encoding of consecutive elements:
// it cuts the bytes into whole elements, keeping a partial element for the
// next Write, and hands each run to put with the index of its first element.
type elementWriter struct {
	elem  ElemType
	limit int // elements expected
	next  int // index of the next element
	carry []byte
	put   func(at int, run *array) error
}

func (w *elementWriter) Write(p []byte) (int, error) {
	n := len(p)
	size := w.elem.ByteSize()
	if len(w.carry) > 0 {
		k := min(size-len(w.carry), len(p))
		w.carry = append(w.carry, p[:k]...)
		p = p[k:]
		if len(w.carry) < size {
			return n, nil
		}
		err := w.emit(w.carry)
		w.carry = w.carry[:0]
		if err != nil {
			return 0, err
		}
	}
	whole := len(p) / size * size
	if whole > 0 {
		if err := w.emit(p[:whole]); err != nil {
			return 0, err
		}
	}
	w.carry = append(w.carry, p[whole:]...)
	return n, nil
}

func (w *elementWriter) emit(b []byte) error {
	run := viewBytes(w.elem, b)
	if run == nil {
		run = decodeTensor(&Tensor{Type: TensorType{Elem: w.elem, Shape: []int64{int64(len(b) / w.elem.ByteSize())}}, Data: b})
	}
	at := w.next
	if w.next += run.size(); w.next > w.limit {
		return internalf("received more than the %d elements expected", w.limit)
	}
	return w.put(at, run)
}

// viewBytes views whole encoded elements as an array without copying, or
// returns nil when the type or alignment does not allow it.
func viewBytes(e ElemType, b []byte) *array {
	return viewTensor(&Tensor{Type: TensorType{Elem: e, Shape: []int64{int64(len(b) / e.ByteSize())}}, Data: b})
}

// copyInto returns a writer that decodes elements into dst from element
// offset on.
func copyInto(dst *array, offset int) *elementWriter {
	return &elementWriter{elem: dst.t.Elem, limit: dst.size() - offset, put: func(at int, run *array) error {
		copyRange(dst, offset+at, run)
		return nil
	}}
}

// copyRange sets dst[at:at+len(src)] = src (same element class).
func copyRange(dst *array, at int, src *array) { copyRun(dst, at, src, 0, src.size()) }
