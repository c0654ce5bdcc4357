// Package zarr reads and writes arrays in the layout Orbax checkpoints use
// without OCDBT: a Zarr v2 array per name, as TensorStore's "zarr" driver
// writes it. An array <name> under a location is the object <name>/.zarray
// (JSON metadata: shape, chunk shape, dtype, compressor) and one object per
// chunk, <name>/<i>.<j>..., each a row-major chunk of the full chunk shape
// (edge chunks padded), compressed with zstd as Orbax does by default.
//
// Writers write whole chunks (a shard of an evenly tiled array is one chunk);
// readers read any region, from the chunks that overlap it, in parallel. A
// chunk that was never written reads as zeros (the fill value is null). The
// functions are safe for concurrent use on distinct chunks.
package zarr
