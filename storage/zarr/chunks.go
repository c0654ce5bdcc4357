package zarr

import (
	"context"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
	decoder     *zstd.Decoder
)

// codecs are shared: EncodeAll and DecodeAll are safe for concurrent use.
func codecs() (*zstd.Encoder, *zstd.Decoder) {
	encoderOnce.Do(func() {
		var err error
		// Level 1, as Orbax asks TensorStore for.
		if encoder, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err != nil {
			panic(err)
		}
		if decoder, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxChunkBytes)); err != nil {
			panic(err)
		}
	})
	return encoder, decoder
}

// WriteRegion writes the chunks that the region covers, from data: the
// region's elements, dense and row-major. The region must be a whole number of
// chunks (a chunk that extends past the array counts as covered when the region
// covers its part inside the array).
func WriteRegion(ctx context.Context, loc *storage.Location, name string, a Array, region ifrt.IndexDomain, data []byte) error {
	if err := checkRegion(a, region, data); err != nil {
		return err
	}
	first, last := make([]int64, len(region)), make([]int64, len(region))
	for i, r := range region {
		if r.Start%a.Chunks[i] != 0 || (r.End%a.Chunks[i] != 0 && r.End != a.Shape[i]) {
			return ifrt.Errorf(ifrt.InvalidArgument, "zarr: region %v of %s is not aligned to chunks %v", region, name, a.Chunks)
		}
		first[i], last[i] = r.Start/a.Chunks[i], (r.End+a.Chunks[i]-1)/a.Chunks[i]
	}
	var objs []storage.Object
	elem := int64(a.DType.HostByteSize())
	enc, _ := codecs()
	for idx := range boxIndices(first, last) {
		var chunk []byte
		if full := chunkFull(a, idx); slices.EqualFunc(full, region, func(x, y ifrt.Range) bool { return x == y }) {
			chunk = data // the region is this one whole chunk: no copy
		} else {
			chunk = make([]byte, a.chunkBytes())
			copyBox(chunk, originOf(full), a.Chunks, data, region, chunkDomain(a, idx), elem)
		}
		if a.Compressed {
			chunk = enc.EncodeAll(chunk, nil)
		}
		objs = append(objs, storage.Object{Name: name + "/" + ChunkKey(idx), Data: chunk})
	}
	return loc.PutAll(ctx, objs)
}

// ReadRegion reads the region into dst (dense, row-major), from every chunk it
// overlaps, in parallel. A missing chunk reads as zeros.
func ReadRegion(ctx context.Context, loc *storage.Location, name string, a Array, region ifrt.IndexDomain, dst []byte) error {
	if err := checkRegion(a, region, dst); err != nil {
		return err
	}
	if region.Shape().NumElements() == 0 {
		return nil
	}
	first, last := make([]int64, len(region)), make([]int64, len(region))
	for i, r := range region {
		first[i], last[i] = r.Start/a.Chunks[i], (r.End+a.Chunks[i]-1)/a.Chunks[i]
	}
	var idxs [][]int64
	var names []string
	for idx := range boxIndices(first, last) {
		idxs = append(idxs, idx)
		names = append(names, name+"/"+ChunkKey(idx))
	}
	elem := int64(a.DType.HostByteSize())
	_, dec := codecs()
	clear(dst)
	return storage.Parallel(ctx, len(names), func(ctx context.Context, i int) error {
		raw, err := loc.Get(ctx, names[i])
		if ifrt.CodeOf(err) == ifrt.NotFound {
			return nil // the fill value
		}
		if err != nil {
			return err
		}
		if a.Compressed {
			if raw, err = dec.DecodeAll(raw, make([]byte, 0, a.chunkBytes())); err != nil {
				return ifrt.Errorf(ifrt.DataLoss, "zarr: chunk %s/%s is not a zstd frame: %v", loc, names[i], err)
			}
		}
		if int64(len(raw)) != a.chunkBytes() {
			return ifrt.Errorf(ifrt.DataLoss, "zarr: chunk %s/%s holds %d bytes, want %d", loc, names[i], len(raw), a.chunkBytes())
		}
		// Chunks overlap disjoint parts of the region: the copies do not race.
		box := intersect(chunkDomain(a, idxs[i]), region)
		copyBox(dst, originOf(region), region.Shape(), raw, chunkFull(a, idxs[i]), box, elem)
		return nil
	})
}

func checkRegion(a Array, region ifrt.IndexDomain, data []byte) error {
	if err := a.Validate(); err != nil {
		return err
	}
	if len(region) != len(a.Shape) {
		return ifrt.Errorf(ifrt.InvalidArgument, "zarr: region %v for an array of rank %d", region, len(a.Shape))
	}
	for i, r := range region {
		if r.Start < 0 || r.End < r.Start || r.End > a.Shape[i] {
			return ifrt.Errorf(ifrt.InvalidArgument, "zarr: region %v is outside shape %v", region, a.Shape)
		}
	}
	if want := region.Shape().NumElements() * int64(a.DType.HostByteSize()); int64(len(data)) != want {
		return ifrt.Errorf(ifrt.InvalidArgument, "zarr: %d bytes for region %v of %v; want %d", len(data), region, a.DType, want)
	}
	return nil
}

// chunkDomain is the part of the array chunk idx holds (clipped to the shape).
func chunkDomain(a Array, idx []int64) ifrt.IndexDomain {
	d := make(ifrt.IndexDomain, len(idx))
	for i, v := range idx {
		d[i] = ifrt.Range{Start: v * a.Chunks[i], End: min((v+1)*a.Chunks[i], a.Shape[i])}
	}
	return d
}

// chunkFull is the unclipped domain of chunk idx: the layout of its bytes.
func chunkFull(a Array, idx []int64) ifrt.IndexDomain {
	d := make(ifrt.IndexDomain, len(idx))
	for i, v := range idx {
		d[i] = ifrt.Range{Start: v * a.Chunks[i], End: (v + 1) * a.Chunks[i]}
	}
	return d
}

func originOf(d ifrt.IndexDomain) []int64 {
	o := make([]int64, len(d))
	for i, r := range d {
		o[i] = r.Start
	}
	return o
}

func intersect(a, b ifrt.IndexDomain) ifrt.IndexDomain {
	d := make(ifrt.IndexDomain, len(a))
	for i := range a {
		d[i] = ifrt.Range{Start: max(a[i].Start, b[i].Start), End: min(a[i].End, b[i].End)}
	}
	return d
}
