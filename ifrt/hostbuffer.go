package ifrt

import (
	"math"
	"runtime"
)

// DenseByteStrides returns the row-major byte strides of shape for elements of
// elemSize bytes.
func DenseByteStrides(shape Shape, elemSize int) []int64 {
	s := make([]int64, len(shape))
	stride := int64(elemSize)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = stride
		stride *= max(shape[i], 1)
	}
	return s
}

// StridesAreDense reports whether byteStrides (nil: dense) lay out an array of
// shape dense and row-major: every stride of a dimension longer than 1 is
// DenseByteStrides'.
func StridesAreDense(shape Shape, elemSize int, byteStrides []int64) bool {
	if byteStrides == nil {
		return true
	}
	want := DenseByteStrides(shape, elemSize)
	for i, n := range shape {
		if n > 1 && byteStrides[i] != want[i] {
			return false
		}
	}
	return true
}

// StridedRegionSize returns the bytes of the minimal host region that holds an array
// of dtype d and the given shape laid out with byteStrides (nil: dense row-major):
// from element 0 to the end of the last element. Strides must be positive multiples
// of the element size, except on dimensions of extent 0 or 1, where they are unused.
// Elements may share bytes (numpy's sliding_window_view and as_strided views) in
// arrays of at most maxOverlapBytes: a few bytes must not stand for an array that
// takes the server's memory. Bad strides are InvalidArgument.
func StridedRegionSize(d DType, shape Shape, byteStrides []int64) (int64, error) {
	dense, err := shape.ByteSize(d)
	if err != nil {
		return 0, err
	}
	if byteStrides == nil || dense == 0 {
		if byteStrides != nil && len(byteStrides) != len(shape) {
			return 0, Errorf(InvalidArgument, "ifrt: %d byte strides for rank %d", len(byteStrides), len(shape))
		}
		return dense, nil
	}
	if len(byteStrides) != len(shape) {
		return 0, Errorf(InvalidArgument, "ifrt: %d byte strides for rank %d", len(byteStrides), len(shape))
	}
	elem := int64(d.HostByteSize())
	if elem == 0 {
		return 0, Errorf(Unimplemented, "ifrt: byte strides are not supported for %v", d)
	}
	end := elem
	for i, n := range shape {
		if n <= 1 {
			continue
		}
		st := byteStrides[i]
		if st <= 0 {
			return 0, Errorf(InvalidArgument, "ifrt: byte stride %d of dimension %d is not positive", st, i)
		}
		if st%elem != 0 {
			return 0, Errorf(InvalidArgument, "ifrt: byte stride %d of dimension %d is not a multiple of the %d-byte element", st, i, elem)
		}
		if st > (math.MaxInt64-end)/(n-1) {
			return 0, Errorf(InvalidArgument, "ifrt: byte strides %v of shape %v overflow", byteStrides, shape)
		}
		end += st * (n - 1)
	}
	if end < dense && dense > maxOverlapBytes {
		return 0, Errorf(InvalidArgument, "ifrt: byte strides %v make the elements of %v%v overlap so much that %d bytes stand for a %d-byte array; pass a contiguous copy (np.ascontiguousarray)", byteStrides, d, shape, end, dense)
	}
	return end, nil
}

// maxOverlapBytes is the largest array whose strides may make elements share
// bytes (StridedRegionSize).
const maxOverlapBytes = 1 << 30

// CopyStridedToDense gathers an array laid out with byteStrides in src into the dense
// row-major dst. Sizes must already be checked with StridedRegionSize.
func CopyStridedToDense(dst, src []byte, d DType, shape Shape, byteStrides []int64) {
	elem := d.HostByteSize()
	if byteStrides == nil {
		CopyBytes(dst, src)
		return
	}
	copyND(dst, 0, DenseByteStrides(shape, elem), src, 0, byteStrides, shape, int64(elem))
}

// CopyDenseToStrided scatters the dense row-major src into dst laid out with
// byteStrides.
func CopyDenseToStrided(dst, src []byte, d DType, shape Shape, byteStrides []int64) {
	elem := d.HostByteSize()
	if byteStrides == nil {
		CopyBytes(dst, src)
		return
	}
	copyND(dst, 0, byteStrides, src, 0, DenseByteStrides(shape, elem), shape, int64(elem))
}

// ExtractDomain returns a dense copy of the part dom of the dense array full.
func ExtractDomain(full []byte, elemSize int, shape Shape, dom IndexDomain) []byte {
	ext := dom.Shape()
	out := make([]byte, ext.NumElements()*int64(elemSize))
	if len(out) == 0 {
		return out
	}
	strides := DenseByteStrides(shape, elemSize)
	off := domainOffset(strides, dom)
	copyND(out, 0, DenseByteStrides(ext, elemSize), full, off, strides, ext, int64(elemSize))
	return out
}

// InsertDomain writes the dense shard into the part dom of the dense array full.
func InsertDomain(full []byte, elemSize int, shape Shape, dom IndexDomain, shard []byte) {
	ext := dom.Shape()
	if ext.NumElements() == 0 {
		return
	}
	strides := DenseByteStrides(shape, elemSize)
	copyND(full, domainOffset(strides, dom), strides, shard, 0, DenseByteStrides(ext, elemSize), ext, int64(elemSize))
}

// DomainRange returns where the part dom of a dense row-major array of shape
// lies in its bytes, [off, off+n), when that part is one contiguous run: the
// dimensions after the first one dom cuts are whole, those before it one
// element wide. A reader or writer of such a part can use the array's bytes
// in place instead of ExtractDomain's or InsertDomain's copy.
func DomainRange(elemSize int, shape Shape, dom IndexDomain) (off, n int64, ok bool) {
	last := -1 // the last dimension that dom cuts
	for i, r := range dom {
		if r.Len() != shape[i] {
			last = i
		}
	}
	for _, r := range dom[:max(last, 0)] {
		if r.Len() != 1 {
			return 0, 0, false
		}
	}
	n = dom.Shape().NumElements() * int64(elemSize)
	if n == 0 {
		return 0, 0, true
	}
	return domainOffset(DenseByteStrides(shape, elemSize), dom), n, true
}

func domainOffset(strides []int64, dom IndexDomain) int64 {
	var off int64
	for i, r := range dom {
		off += r.Start * strides[i]
	}
	return off
}

// copyND copies an extent-shaped block between two strided layouts, moving whole
// contiguous runs at once.
func copyND(dst []byte, dstOff int64, dstStrides []int64, src []byte, srcOff int64, srcStrides []int64, extent Shape, elem int64) {
	if len(extent) == 0 {
		copy(dst[dstOff:dstOff+elem], src[srcOff:srcOff+elem])
		return
	}
	// Fold trailing dimensions that are contiguous in both layouts into one run.
	last := len(extent) - 1
	run := elem
	for last >= 0 && (extent[last] <= 1 || dstStrides[last] == run && srcStrides[last] == run) {
		run *= max(extent[last], 1)
		if extent[last] == 0 {
			return
		}
		last--
	}
	copyRuns(dst, dstOff, dstStrides[:last+1], src, srcOff, srcStrides[:last+1], extent[:last+1], run)
}

func copyRuns(dst []byte, dstOff int64, dstStrides []int64, src []byte, srcOff int64, srcStrides []int64, extent Shape, run int64) {
	if len(extent) == 0 {
		CopyBytes(dst[dstOff:dstOff+run], src[srcOff:srcOff+run])
		return
	}
	for i := int64(0); i < extent[0]; i++ {
		copyRuns(dst, dstOff+i*dstStrides[0], dstStrides[1:], src, srcOff+i*srcStrides[0], srcStrides[1:], extent[1:], run)
	}
}

// AssembleDense returns the dense row-major contents of an array of the given shape
// from its shards, shard i holding domains[i]. Replicated domains are written once.
func AssembleDense(elemSize int, shape Shape, domains []IndexDomain, shards [][]byte) []byte {
	full := make([]byte, shape.NumElements()*int64(elemSize))
	seen := make(map[string]bool, len(domains))
	for i, dom := range domains {
		key := dom.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		InsertDomain(full, elemSize, shape, dom, shards[i])
	}
	return full
}

// CheckHostBuffer reports whether a host buffer of n bytes is exactly the minimal
// region (StridedRegionSize) of an array of dtype d and the given shape laid out
// with byteStrides, with an InvalidArgument error saying what it should be.
func CheckHostBuffer(d DType, shape Shape, byteStrides []int64, n int) error {
	size, err := StridedRegionSize(d, shape, byteStrides)
	if err != nil {
		return err
	}
	if int64(n) != size {
		return Errorf(InvalidArgument, "ifrt: host buffer has %d bytes, %v%v with byte strides %v needs %d", n, d, shape, byteStrides, size)
	}
	return nil
}

// CopyBytes is copy(dst, src) in pieces of at most 1 MiB, each ending in a
// yield; use it for copies that may be large. The runtime cannot preempt a
// goroutine inside memmove, and a garbage collection waits for every
// goroutine to stop: one copy of gigabytes, which takes seconds where first
// touches of memory fault slowly (some virtual machines), would stall every
// goroutine of the process, a server's heartbeats and its other sessions
// included.
func CopyBytes(dst, src []byte) int {
	if len(dst) <= copyPiece || len(src) <= copyPiece {
		return copy(dst, src) // inlined: a short copy costs nothing more
	}
	return copyPieces(dst, src)
}

const copyPiece = 1 << 20

func copyPieces(dst, src []byte) int {
	n := min(len(dst), len(src))
	for lo := 0; lo < n; lo += copyPiece {
		copy(dst[lo:min(lo+copyPiece, n)], src[lo:])
		if lo+copyPiece < n {
			runtime.Gosched()
		}
	}
	return n
}
