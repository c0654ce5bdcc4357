package ifrt

import "context"

// HostContentReader is an Array whose host content has no size known from
// its dtype and shape: a STRING array, whose content is a serialized
// xla.ifrt.proto.StringArrayContents (field 1, one bytes entry per element in
// row-major order), as the IFRT proxy carries it. CopyToHostBuffer cannot
// read such an array; ReadHostContent, which is called for STRING arrays
// only, can.
type HostContentReader interface {
	ReadHostContent(ctx context.Context) ([]byte, error)
}

// ReadHostContent returns a's content on the host: a STRING array's through
// its HostContentReader (found by a type assertion or a.As), any other
// array's dense row-major bytes through CopyToHostBuffer.
func ReadHostContent(ctx context.Context, a Array) ([]byte, error) {
	if a.DType() == STRING {
		r, ok := a.(HostContentReader)
		if !ok && !a.As(&r) {
			return nil, Errorf(Unimplemented, "ifrt: reading a STRING array of %T is not supported", a)
		}
		return r.ReadHostContent(ctx)
	}
	size, err := StridedRegionSize(a.DType(), a.Shape(), nil)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	if err := a.CopyToHostBuffer(ctx, buf, nil); err != nil {
		return nil, err
	}
	return buf, nil
}
