package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
)

// MetadataName is the object holding an array's metadata, under its name.
const MetadataName = ".zarray"

// Array describes a stored array.
type Array struct {
	DType  ifrt.DType
	Shape  ifrt.Shape
	Chunks ifrt.Shape // the chunk shape; one entry per dimension
	// Compressed chunks are zstd frames (Orbax's default); others raw bytes.
	Compressed bool
}

// zarray is the JSON of .zarray, with TensorStore's field order.
type zarray struct {
	Chunks             []int64     `json:"chunks"`
	Compressor         *compressor `json:"compressor"`
	DimensionSeparator string      `json:"dimension_separator,omitempty"`
	DType              string      `json:"dtype"`
	FillValue          any         `json:"fill_value"`
	Filters            any         `json:"filters"`
	Order              string      `json:"order"`
	Shape              []int64     `json:"shape"`
	ZarrFormat         int         `json:"zarr_format"`
}

type compressor struct {
	ID    string `json:"id"`
	Level int    `json:"level,omitempty"`
}

// zarrDTypes are the Zarr v2 dtype strings of the element types, as
// TensorStore names them (bfloat16 has no NumPy type string).
var zarrDTypes = map[ifrt.DType]string{
	ifrt.PRED: "|b1", ifrt.S8: "|i1", ifrt.S16: "<i2", ifrt.S32: "<i4", ifrt.S64: "<i8",
	ifrt.U8: "|u1", ifrt.U16: "<u2", ifrt.U32: "<u4", ifrt.U64: "<u8",
	ifrt.F16: "<f2", ifrt.F32: "<f4", ifrt.F64: "<f8", ifrt.BF16: "bfloat16",
	ifrt.C64: "<c8", ifrt.C128: "<c16",
}

// Validate checks that the array can be stored.
func (a Array) Validate() error {
	if _, ok := zarrDTypes[a.DType]; !ok {
		return ifrt.Errorf(ifrt.InvalidArgument, "zarr: dtype %v cannot be stored", a.DType)
	}
	if err := a.Shape.Validate(); err != nil {
		return err
	}
	if len(a.Chunks) != len(a.Shape) {
		return ifrt.Errorf(ifrt.InvalidArgument, "zarr: chunk shape %v for an array of shape %v", a.Chunks, a.Shape)
	}
	size := int64(a.DType.HostByteSize())
	for _, c := range a.Chunks {
		if c <= 0 || c > 1<<40/size {
			return ifrt.Errorf(ifrt.InvalidArgument, "zarr: chunk shape %v is not positive or too large", a.Chunks)
		}
		size *= c
	}
	if size > maxChunkBytes {
		return ifrt.Errorf(ifrt.InvalidArgument, "zarr: chunks of shape %v are %d bytes; at most %d", a.Chunks, size, int64(maxChunkBytes))
	}
	return nil
}

// maxChunkBytes bounds one chunk, so a hostile .zarray cannot make a reader
// allocate without limit.
const maxChunkBytes = 16 << 30

// chunkBytes is the byte size of one (padded) chunk.
func (a Array) chunkBytes() int64 {
	return a.Chunks.NumElements() * int64(a.DType.HostByteSize())
}

// ChunkKey is the object name of chunk idx, relative to the array.
func ChunkKey(idx []int64) string {
	if len(idx) == 0 {
		return "0"
	}
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ".")
}

// WriteMetadata writes name/.zarray.
func WriteMetadata(ctx context.Context, loc *storage.Location, name string, a Array) error {
	if err := a.Validate(); err != nil {
		return err
	}
	z := zarray{
		Chunks: a.Chunks, DimensionSeparator: ".", DType: zarrDTypes[a.DType], Order: "C",
		Shape: a.Shape, ZarrFormat: 2,
	}
	if a.Compressed {
		z.Compressor = &compressor{ID: "zstd", Level: 1}
	}
	if z.Shape == nil {
		z.Shape = []int64{}
	}
	if z.Chunks == nil {
		z.Chunks = []int64{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "<f4", as TensorStore writes it
	if err := enc.Encode(z); err != nil {
		return ifrt.Errorf(ifrt.Internal, "zarr: %v", err)
	}
	return loc.Put(ctx, name+"/"+MetadataName, bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// ReadMetadata reads name/.zarray; what this package cannot read (another
// compressor, filters, Fortran order, another format) is FAILED_PRECONDITION.
func ReadMetadata(ctx context.Context, loc *storage.Location, name string) (Array, error) {
	data, err := loc.Get(ctx, name+"/"+MetadataName)
	if err != nil {
		return Array{}, err
	}
	return ParseMetadata(data, loc.String()+"/"+name)
}

// ParseMetadata decodes the JSON of a .zarray; where names it in errors.
func ParseMetadata(data []byte, where string) (Array, error) {
	var z zarray
	if err := json.Unmarshal(data, &z); err != nil {
		return Array{}, ifrt.Errorf(ifrt.DataLoss, "zarr: %s/.zarray is not Zarr metadata: %v", where, err)
	}
	bad := func(what string, v any) (Array, error) {
		return Array{}, ifrt.Errorf(ifrt.FailedPrecondition, "zarr: %s: %s %v is not supported", where, what, v)
	}
	if z.ZarrFormat != 2 {
		return bad("zarr_format", z.ZarrFormat)
	}
	if z.Order != "C" {
		return bad("order", z.Order)
	}
	if z.Filters != nil {
		return bad("filters", z.Filters)
	}
	if z.DimensionSeparator != "" && z.DimensionSeparator != "." {
		return bad("dimension_separator", z.DimensionSeparator)
	}
	a := Array{Shape: z.Shape, Chunks: z.Chunks}
	if a.Shape == nil {
		a.Shape = ifrt.Shape{}
	}
	if a.Chunks == nil {
		a.Chunks = ifrt.Shape{}
	}
	for d, s := range zarrDTypes {
		if s == z.DType {
			a.DType = d
		}
	}
	if a.DType == ifrt.InvalidDType {
		return bad("dtype", z.DType)
	}
	switch {
	case z.Compressor == nil:
	case z.Compressor.ID == "zstd":
		a.Compressed = true
	default:
		return bad("compressor", z.Compressor.ID)
	}
	if err := a.Validate(); err != nil {
		return Array{}, ifrt.Errorf(ifrt.DataLoss, "zarr: %s/.zarray: %w", where, err)
	}
	return a, nil
}

// Equal reports whether a and b describe the same stored array.
func (a Array) Equal(b Array) bool {
	return a.DType == b.DType && a.Shape.Equal(b.Shape) && slices.Equal(a.Chunks, b.Chunks) && a.Compressed == b.Compressed
}
