package ifrt_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

func TestStridedRoundTrip(t *testing.T) {
	shape := ifrt.Shape{2, 3, 4}
	dense := make([]byte, shape.NumElements()*2)
	for i := range dense {
		dense[i] = byte(i)
	}
	// Fortran order with padding after every innermost column.
	strides := []int64{2, 6, 20}
	size, err := ifrt.StridedRegionSize(ifrt.BF16, shape, strides)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2*1 + 6*2 + 20*3 + 2); size != want {
		t.Fatalf("StridedRegionSize = %d, want %d", size, want)
	}
	strided := make([]byte, size)
	ifrt.CopyDenseToStrided(strided, dense, ifrt.BF16, shape, strides)
	back := make([]byte, len(dense))
	ifrt.CopyStridedToDense(back, strided, ifrt.BF16, shape, strides)
	if !bytes.Equal(back, dense) {
		t.Errorf("strided round trip changed the contents")
	}
	// Element (1,2,3) lives at 1*2 + 2*6 + 3*20 in the strided buffer.
	flat := (1*3+2)*4 + 3
	if got := strided[1*2+2*6+3*20]; got != dense[2*flat] {
		t.Errorf("element (1,2,3) first byte = %d, want %d", got, dense[2*flat])
	}
}

func TestStridedRegionSizeErrors(t *testing.T) {
	for _, tc := range []struct {
		strides []int64
		want    error
	}{
		// Issue 11: these were UNIMPLEMENTED.
		{[]int64{-4}, ifrt.ErrInvalidArgument},
		{[]int64{0}, ifrt.ErrInvalidArgument},
		{[]int64{3}, ifrt.ErrInvalidArgument},
		{[]int64{1 << 62}, ifrt.ErrInvalidArgument},
	} {
		_, err := ifrt.StridedRegionSize(ifrt.F32, ifrt.Shape{5}, tc.strides)
		if !errorsIs(err, tc.want) {
			t.Errorf("StridedRegionSize(strides %v) = %v, want %v", tc.strides, err, tc.want)
		}
	}
	// Overlapping elements must not let a small buffer stand for a huge array.
	if _, err := ifrt.StridedRegionSize(ifrt.F32, ifrt.Shape{1 << 20, 1 << 20}, []int64{4, 4}); !errorsIs(err, ifrt.ErrInvalidArgument) {
		t.Errorf("StridedRegionSize of overlapping strides = %v, want InvalidArgument", err)
	}
}

// TestOverlappingStrides takes numpy's sliding_window_view of 10 floats,
// windows of 3 (strides 4, 4), whose 8 rows share elements.
func TestOverlappingStrides(t *testing.T) {
	shape, strides := ifrt.Shape{8, 3}, []int64{4, 4}
	region, err := ifrt.StridedRegionSize(ifrt.F32, shape, strides)
	if err != nil || region != 40 {
		t.Fatalf("StridedRegionSize = %d, %v; want 40 bytes", region, err)
	}
	src := make([]byte, region)
	for i := range 10 {
		binary.LittleEndian.PutUint32(src[4*i:], math.Float32bits(float32(i)))
	}
	dense := make([]byte, 8*3*4)
	ifrt.CopyStridedToDense(dense, src, ifrt.F32, shape, strides)
	for r := range 8 {
		for c := range 3 {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(dense[4*(3*r+c):])); got != float32(r+c) {
				t.Fatalf("window %d element %d = %v, want %v", r, c, got, r+c)
			}
		}
	}
}

func TestExtractInsertDomain(t *testing.T) {
	shape := ifrt.Shape{4, 5}
	full := make([]byte, 20)
	for i := range full {
		full[i] = byte(i)
	}
	d := ifrt.IndexDomain{{Start: 1, End: 3}, {Start: 2, End: 5}}
	got := ifrt.ExtractDomain(full, 1, shape, d)
	if want := []byte{7, 8, 9, 12, 13, 14}; !bytes.Equal(got, want) {
		t.Errorf("ExtractDomain = %v, want %v", got, want)
	}
	dst := make([]byte, 20)
	ifrt.InsertDomain(dst, 1, shape, d, got)
	if dst[7] != 7 || dst[14] != 14 || dst[6] != 0 {
		t.Errorf("InsertDomain wrote %v", dst)
	}
}

func TestCheckHostBuffer(t *testing.T) {
	if err := ifrt.CheckHostBuffer(ifrt.F32, ifrt.Shape{2, 3}, nil, 24); err != nil {
		t.Errorf("a dense 24-byte buffer for f32[2,3]: %v", err)
	}
	if err := ifrt.CheckHostBuffer(ifrt.F32, ifrt.Shape{2, 3}, []int64{4, 8}, 24); err != nil {
		t.Errorf("a column-major f32[2,3] in 24 bytes: %v", err)
	}
	if err := ifrt.CheckHostBuffer(ifrt.F32, ifrt.Shape{2, 3}, []int64{4, 12}, 24); !errorsIs(err, ifrt.ErrInvalidArgument) {
		t.Errorf("24 bytes for a padded column-major f32[2,3] (28 bytes) = %v, want InvalidArgument", err)
	}
	for _, n := range []int{23, 25, 0} {
		if err := ifrt.CheckHostBuffer(ifrt.F32, ifrt.Shape{2, 3}, nil, n); !errorsIs(err, ifrt.ErrInvalidArgument) {
			t.Errorf("a %d-byte buffer for f32[2,3] = %v, want InvalidArgument", n, err)
		}
	}
}

// CopyBytes of many megabytes lets other goroutines run between its pieces:
// a runtime with one processor runs one while it copies.
func TestCopyBytesYields(t *testing.T) {
	src := make([]byte, 8<<20)
	for i := range src {
		src[i] = byte(i % 251)
	}
	dst := make([]byte, len(src))
	if !testenv.YieldsDuring(func() { ifrt.CopyBytes(dst, src) }) {
		t.Error("no other goroutine ran during a copy of 8 MiB")
	}
	if !bytes.Equal(dst, src) {
		t.Error("the copy differs from its source")
	}
}
