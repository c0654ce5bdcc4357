package ifrt

import (
	"fmt"
	"slices"
)

// Sharding says how an array's elements are split over devices. Every sharding
// computes, for a global shape, each device's shard as an IndexDomain. The kinds are
// SingleDeviceSharding, ConcreteEvenSharding, ConcreteSharding and HloSharding; the
// set is closed. Shardings are immutable values, safe to share between goroutines.
type Sharding interface {
	// Devices returns the devices holding shards, in shard order.
	Devices() DeviceList
	// MemoryKind returns the kind of memory the shards live in; empty is each
	// device's default.
	MemoryKind() MemoryKind
	// IsFullyReplicated reports whether every device holds the whole array.
	IsFullyReplicated() bool
	// IndexDomains returns, for an array of the given global shape, the domain each
	// device of Devices() holds, in the same order.
	IndexDomains(shape Shape) ([]IndexDomain, error)
	// WithDevices returns the same partitioning over other devices (of the same
	// count) and memory kind.
	WithDevices(devices DeviceList, kind MemoryKind) (Sharding, error)
	String() string

	isSharding()
}

// ShardShape returns the shape every shard of s has for an array of the given shape,
// or an InvalidArgument error when the shards differ (uneven tiling).
func ShardShape(s Sharding, shape Shape) (Shape, error) {
	domains, err := s.IndexDomains(shape)
	if err != nil {
		return nil, err
	}
	first := domains[0].Shape()
	for _, d := range domains[1:] {
		if !d.Shape().Equal(first) {
			return nil, Errorf(InvalidArgument, "ifrt: sharding %v splits %v into shards of different shapes", s, shape)
		}
	}
	return first, nil
}

// EquivalentShardings reports whether a and b place the same domains of an array of
// the given shape on the same devices in the same memory kind.
func EquivalentShardings(a, b Sharding, shape Shape) bool {
	if !a.Devices().Equal(b.Devices()) || a.MemoryKind() != b.MemoryKind() {
		return false
	}
	da, errA := a.IndexDomains(shape)
	db, errB := b.IndexDomains(shape)
	if errA != nil || errB != nil {
		return false
	}
	return slices.EqualFunc(da, db, func(x, y IndexDomain) bool { return slices.Equal(x, y) })
}

// SingleDeviceSharding places the whole array on one device.
type SingleDeviceSharding struct {
	Device *Device
	Kind   MemoryKind
}

// NewSingleDeviceSharding returns the sharding of an array held whole by d.
func NewSingleDeviceSharding(d *Device, kind MemoryKind) *SingleDeviceSharding {
	return &SingleDeviceSharding{Device: d, Kind: kind}
}

func (s *SingleDeviceSharding) Devices() DeviceList     { return DeviceList{s.Device} }
func (s *SingleDeviceSharding) MemoryKind() MemoryKind  { return s.Kind }
func (s *SingleDeviceSharding) IsFullyReplicated() bool { return true }
func (s *SingleDeviceSharding) isSharding()             {}

func (s *SingleDeviceSharding) IndexDomains(shape Shape) ([]IndexDomain, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	return []IndexDomain{FullDomain(shape)}, nil
}

func (s *SingleDeviceSharding) WithDevices(devices DeviceList, kind MemoryKind) (Sharding, error) {
	if len(devices) != 1 {
		return nil, Errorf(InvalidArgument, "ifrt: single-device sharding needs 1 device, got %d", len(devices))
	}
	return &SingleDeviceSharding{Device: devices[0], Kind: kind}, nil
}

func (s *SingleDeviceSharding) String() string {
	return fmt.Sprintf("SingleDeviceSharding(%v%s)", s.Device, kindSuffix(s.Kind))
}

// ConcreteEvenSharding splits an array of one fixed shape into equal shards, or
// replicates it. IFRT leaves the placement of non-replicated shards unspecified; here
// shards tile the array in row-major order of the tile grid, device i holding tile i.
type ConcreteEvenSharding struct {
	DeviceList      DeviceList
	Kind            MemoryKind
	Shape           Shape // the global shape this sharding is for
	ShardShape      Shape
	FullyReplicated bool
}

func (s *ConcreteEvenSharding) Devices() DeviceList     { return s.DeviceList }
func (s *ConcreteEvenSharding) MemoryKind() MemoryKind  { return s.Kind }
func (s *ConcreteEvenSharding) IsFullyReplicated() bool { return s.FullyReplicated }
func (s *ConcreteEvenSharding) isSharding()             {}

func (s *ConcreteEvenSharding) IndexDomains(shape Shape) ([]IndexDomain, error) {
	if !shape.Equal(s.Shape) {
		return nil, Errorf(InvalidArgument, "ifrt: %v is for shape %v, not %v", s, s.Shape, shape)
	}
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	out := make([]IndexDomain, len(s.DeviceList))
	if s.FullyReplicated {
		for i := range out {
			out[i] = FullDomain(shape)
		}
		return out, nil
	}
	if len(s.ShardShape) != len(shape) {
		return nil, Errorf(InvalidArgument, "ifrt: shard shape %v has another rank than %v", s.ShardShape, shape)
	}
	grid := make(Shape, len(shape))
	tiles := int64(1)
	for i := range shape {
		if s.ShardShape[i] <= 0 || shape[i]%s.ShardShape[i] != 0 {
			if shape[i] == 0 && s.ShardShape[i] == 0 {
				grid[i] = 1
				continue
			}
			return nil, Errorf(InvalidArgument, "ifrt: shard shape %v does not evenly divide %v", s.ShardShape, shape)
		}
		grid[i] = shape[i] / s.ShardShape[i]
		tiles *= grid[i]
	}
	if tiles != int64(len(s.DeviceList)) {
		return nil, Errorf(InvalidArgument, "ifrt: %v has %d tiles for %d devices", s, tiles, len(s.DeviceList))
	}
	for i := range out {
		coords := unravel(int64(i), grid)
		d := make(IndexDomain, len(shape))
		for k, c := range coords {
			d[k] = Range{c * s.ShardShape[k], (c + 1) * s.ShardShape[k]}
		}
		out[i] = d
	}
	return out, nil
}

func (s *ConcreteEvenSharding) WithDevices(devices DeviceList, kind MemoryKind) (Sharding, error) {
	if len(devices) != len(s.DeviceList) {
		return nil, Errorf(InvalidArgument, "ifrt: %v needs %d devices, got %d", s, len(s.DeviceList), len(devices))
	}
	c := *s
	c.DeviceList, c.Kind = devices, kind
	return &c, nil
}

func (s *ConcreteEvenSharding) String() string {
	return fmt.Sprintf("ConcreteEvenSharding(devices=%v shape=%v shard=%v replicated=%t%s)",
		s.DeviceList, s.Shape, s.ShardShape, s.FullyReplicated, kindSuffix(s.Kind))
}

// ConcreteSharding gives each device a shard of its own shape. IFRT leaves placement
// unspecified; here shards are stacked along the leading dimension, in device order,
// and must agree on every other dimension.
type ConcreteSharding struct {
	DeviceList  DeviceList
	Kind        MemoryKind
	Shape       Shape
	ShardShapes []Shape
}

func (s *ConcreteSharding) Devices() DeviceList    { return s.DeviceList }
func (s *ConcreteSharding) MemoryKind() MemoryKind { return s.Kind }
func (s *ConcreteSharding) isSharding()            {}

func (s *ConcreteSharding) IsFullyReplicated() bool {
	for _, sh := range s.ShardShapes {
		if !sh.Equal(s.Shape) {
			return false
		}
	}
	return true
}

func (s *ConcreteSharding) IndexDomains(shape Shape) ([]IndexDomain, error) {
	if !shape.Equal(s.Shape) {
		return nil, Errorf(InvalidArgument, "ifrt: %v is for shape %v, not %v", s, s.Shape, shape)
	}
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	if len(s.ShardShapes) != len(s.DeviceList) {
		return nil, Errorf(InvalidArgument, "ifrt: %v has %d shard shapes for %d devices", s, len(s.ShardShapes), len(s.DeviceList))
	}
	out := make([]IndexDomain, len(s.ShardShapes))
	if s.IsFullyReplicated() {
		for i := range out {
			out[i] = FullDomain(shape)
		}
		return out, nil
	}
	if len(shape) == 0 {
		return nil, Errorf(InvalidArgument, "ifrt: %v splits a scalar", s)
	}
	var offset int64
	for i, sh := range s.ShardShapes {
		if len(sh) != len(shape) || !sh[1:].Equal(shape[1:]) || sh[0] < 0 {
			return nil, Errorf(InvalidArgument, "ifrt: shard shape %v cannot stack along dimension 0 into %v", sh, shape)
		}
		d := FullDomain(shape)
		d[0] = Range{offset, offset + sh[0]}
		offset += sh[0]
		out[i] = d
	}
	if offset != shape[0] {
		return nil, Errorf(InvalidArgument, "ifrt: shards of %v cover %d rows of %d", s, offset, shape[0])
	}
	return out, nil
}

func (s *ConcreteSharding) WithDevices(devices DeviceList, kind MemoryKind) (Sharding, error) {
	if len(devices) != len(s.DeviceList) {
		return nil, Errorf(InvalidArgument, "ifrt: %v needs %d devices, got %d", s, len(s.DeviceList), len(devices))
	}
	c := *s
	c.DeviceList, c.Kind = devices, kind
	return &c, nil
}

func (s *ConcreteSharding) String() string {
	return fmt.Sprintf("ConcreteSharding(devices=%v shape=%v shards=%v%s)", s.DeviceList, s.Shape, s.ShardShapes, kindSuffix(s.Kind))
}

func kindSuffix(k MemoryKind) string {
	if k == "" {
		return ""
	}
	return " memory=" + string(k)
}

// unravel returns the row-major coordinates of flat index i in a grid of dims.
func unravel(i int64, dims Shape) []int64 {
	c := make([]int64, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		if dims[k] > 0 {
			c[k] = i % dims[k]
			i /= dims[k]
		}
	}
	return c
}
