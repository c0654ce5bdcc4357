package zarr_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
	"github.com/openpathways/pathways/storage/zarr"
)

func open(t *testing.T, dir string) *storage.Location {
	t.Helper()
	loc, err := storage.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

func f32s(n int, f func(i int) float32) []byte {
	b := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f(i)))
	}
	return b
}

// TestReadOrbax reads arrays that plain Orbax 0.12.8 (TensorStore 0.1.86)
// saved without OCDBT: a 4x8 f32 over a 2x2 mesh, an int32 2x6 split on its
// columns and a replicated bf16 that Orbax chunked in four.
func TestReadOrbax(t *testing.T) {
	ctx := context.Background()
	loc := open(t, "testdata/orbax")
	w, err := zarr.ReadMetadata(ctx, loc, "w")
	if err != nil {
		t.Fatal(err)
	}
	if want := (zarr.Array{DType: ifrt.F32, Shape: ifrt.Shape{4, 8}, Chunks: ifrt.Shape{2, 4}, Compressed: true}); !w.Equal(want) {
		t.Fatalf("metadata %+v, want %+v", w, want)
	}
	all := make([]byte, 4*32)
	if err := zarr.ReadRegion(ctx, loc, "w", w, ifrt.FullDomain(w.Shape), all); err != nil {
		t.Fatal(err)
	}
	if want := f32s(32, func(i int) float32 { return float32(i) }); !bytes.Equal(all, want) {
		t.Errorf("w read back %v", all)
	}
	// A region across four chunks: rows 1..3, columns 3..6.
	part := make([]byte, 4*2*3)
	if err := zarr.ReadRegion(ctx, loc, "w", w, ifrt.IndexDomain{{Start: 1, End: 3}, {Start: 3, End: 6}}, part); err != nil {
		t.Fatal(err)
	}
	if want := f32s(6, func(i int) float32 { return float32((1+i/3)*8 + 3 + i%3) }); !bytes.Equal(part, want) {
		t.Errorf("w[1:3, 3:6] read back %v, want %v", part, want)
	}
	b, err := zarr.ReadMetadata(ctx, loc, "b")
	if err != nil || b.DType != ifrt.BF16 {
		t.Fatalf("b: %+v, %v", b, err)
	}
	bf := make([]byte, 16)
	if err := zarr.ReadRegion(ctx, loc, "b", b, ifrt.FullDomain(b.Shape), bf); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if got := math.Float32frombits(uint32(binary.LittleEndian.Uint16(bf[2*i:])) << 16); got != float32(i) {
			t.Errorf("b[%d] = %v", i, got)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	loc := open(t, t.TempDir())
	for _, compressed := range []bool{true, false} {
		// 5x7 in chunks of 2x4: the edge chunks are padded.
		a := zarr.Array{DType: ifrt.F32, Shape: ifrt.Shape{5, 7}, Chunks: ifrt.Shape{2, 4}, Compressed: compressed}
		if err := zarr.WriteMetadata(ctx, loc, "x", a); err != nil {
			t.Fatal(err)
		}
		got, err := zarr.ReadMetadata(ctx, loc, "x")
		if err != nil || !got.Equal(a) {
			t.Fatalf("metadata read back %+v, %v; want %+v", got, err, a)
		}
		full := f32s(35, func(i int) float32 { return float32(i) + 0.5 })
		for r := int64(0); r < 5; r += 2 {
			for c := int64(0); c < 7; c += 4 {
				region := ifrt.IndexDomain{{Start: r, End: min(r+2, 5)}, {Start: c, End: min(c+4, 7)}}
				data := make([]byte, 4*region.Shape().NumElements())
				// Cut the region out of full.
				for i := region[0].Start; i < region[0].End; i++ {
					n := region[1].Len()
					copy(data[4*(i-r)*n:], full[4*(i*7+c):4*(i*7+c+n)])
				}
				if err := zarr.WriteRegion(ctx, loc, "x", a, region, data); err != nil {
					t.Fatal(err)
				}
			}
		}
		back := make([]byte, len(full))
		if err := zarr.ReadRegion(ctx, loc, "x", a, ifrt.FullDomain(a.Shape), back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, full) {
			t.Errorf("compressed=%v: read back %v", compressed, back)
		}
	}
	// Scalars are one chunk named 0.
	s := zarr.Array{DType: ifrt.S32, Shape: ifrt.Shape{}, Chunks: ifrt.Shape{}}
	if err := zarr.WriteMetadata(ctx, loc, "s", s); err != nil {
		t.Fatal(err)
	}
	if err := zarr.WriteRegion(ctx, loc, "s", s, ifrt.IndexDomain{}, []byte{7, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := loc.Get(ctx, "s/0"); err != nil {
		t.Errorf("the scalar's chunk: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	loc := open(t, t.TempDir())
	a := zarr.Array{DType: ifrt.F32, Shape: ifrt.Shape{4}, Chunks: ifrt.Shape{2}}
	if err := zarr.WriteRegion(ctx, loc, "x", a, ifrt.IndexDomain{{Start: 1, End: 3}}, make([]byte, 8)); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("an unaligned region: %v; want INVALID_ARGUMENT", err)
	}
	if err := zarr.ReadRegion(ctx, loc, "x", a, ifrt.IndexDomain{{Start: 0, End: 5}}, make([]byte, 20)); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("a region outside the shape: %v; want INVALID_ARGUMENT", err)
	}
	if err := loc.Put(ctx, "x/0", []byte("not a chunk")); err != nil {
		t.Fatal(err)
	}
	if err := zarr.ReadRegion(ctx, loc, "x", a, ifrt.FullDomain(a.Shape), make([]byte, 16)); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("a short chunk: %v; want DATA_LOSS", err)
	}
	for _, meta := range []string{`{`, `{"zarr_format":3}`, `{"zarr_format":2,"order":"C","dtype":"<f4","shape":[4],"chunks":[2],"compressor":{"id":"blosc"}}`,
		`{"zarr_format":2,"order":"C","dtype":"<f4","shape":[4],"chunks":[0]}`, `{"zarr_format":2,"order":"C","dtype":"<f4","shape":[4],"chunks":[1099511627776]}`} {
		if _, err := zarr.ParseMetadata([]byte(meta), "x"); err == nil || ifrt.CodeOf(err) == ifrt.Unknown {
			t.Errorf("ParseMetadata(%s) = %v; want a coded error", meta, err)
		}
	}
}

func FuzzParseMetadata(f *testing.F) {
	f.Add([]byte(`{"chunks":[2,4],"compressor":{"id":"zstd","level":1},"dimension_separator":".","dtype":"<f4","fill_value":null,"filters":null,"order":"C","shape":[4,8],"zarr_format":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := zarr.ParseMetadata(data, "fuzz")
		if err != nil {
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("ParseMetadata accepted an invalid array: %v", err)
		}
	})
}
