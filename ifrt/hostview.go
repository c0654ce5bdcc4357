package ifrt

// HostBytesViewer is an Array whose dense row-major contents already lie in
// Go memory that nothing writes to (a host backend's arrays): HostBytes
// lends them without a copy, so that a reader sends or copies them once
// instead of first copying them out with CopyToHostBuffer. The caller must
// not change them. Being Go memory, they stay valid for as long as the
// caller holds them, even after the array is deleted. A backend whose array
// memory is not Go memory (a PJRT buffer) does not implement it.
type HostBytesViewer interface {
	// HostBytes returns the array's contents, or ErrArrayDeleted, or false
	// when this array has none to lend (several shards, a strided layout).
	HostBytes() ([]byte, bool, error)
}

// HostBytes returns a's dense contents without a copy when a (found by a
// type assertion or a.As) lends them; ok is false when it does not.
func HostBytes(a Array) (data []byte, ok bool, err error) {
	v, isViewer := a.(HostBytesViewer)
	if !isViewer && !a.As(&v) {
		return nil, false, nil
	}
	return v.HostBytes()
}
