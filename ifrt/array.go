package ifrt

import "context"

// ArraySpec describes an array without holding it.
type ArraySpec struct {
	DType    DType
	Shape    Shape
	Sharding Sharding
	Layout   *Layout // nil: the default (dense row-major)
}

// Validate checks the dtype, the shape and that the sharding can place the shape.
func (s ArraySpec) Validate() error {
	if !s.DType.Valid() {
		return Errorf(InvalidArgument, "ifrt: invalid dtype %v", s.DType)
	}
	if err := s.Shape.Validate(); err != nil {
		return err
	}
	if s.Sharding == nil {
		return Errorf(InvalidArgument, "ifrt: array spec has no sharding")
	}
	if err := s.Sharding.Devices().Validate(); err != nil {
		return err
	}
	_, err := s.Sharding.IndexDomains(s.Shape)
	return err
}

// Array is an array whose shards live on devices. Arrays are immutable: operations
// that "change" one return a new Array. An Array is safe for concurrent use. Delete
// frees its device memory; afterwards every use fails with ErrArrayDeleted.
type Array interface {
	DType() DType
	Shape() Shape
	Sharding() Sharding
	Layout() *Layout
	// Spec returns DType, Shape, Sharding and Layout together.
	Spec() ArraySpec

	// CopyToHostBuffer copies the whole array into dst, which must hold exactly the
	// minimal region for the given byte strides (nil: dense row-major; see
	// StridedRegionSize). The array must be fully addressable.
	CopyToHostBuffer(ctx context.Context, dst []byte, byteStrides []int64) error
	// Ready returns a future that resolves when the array's contents are computed,
	// with the error of the computation if it failed.
	Ready() *Future
	// Delete frees the array's device memory, except memory it shares with other
	// arrays (made with ReuseInput), which lives until they are deleted too. The
	// future resolves when it is freed. Deleting twice is harmless.
	Delete() *Future
	IsDeleted() bool

	// As sets target, a pointer to a backend-native type, to the backend's handle and
	// reports whether it could.
	As(target any) bool

	isArray()
}

// CopySpec returns the spec of a copy of an array of spec onto devices (as many as
// its sharding has, the partitioning unchanged) and, when memoryKind is not nil,
// into another kind of memory: what Client.CopyArrays makes.
func CopySpec(spec ArraySpec, devices DeviceList, memoryKind *MemoryKind) (ArraySpec, error) {
	kind := spec.Sharding.MemoryKind()
	if memoryKind != nil {
		kind = *memoryKind
	}
	s, err := spec.Sharding.WithDevices(devices, kind)
	if err != nil {
		return ArraySpec{}, err
	}
	spec.Sharding = s
	return spec, nil
}
