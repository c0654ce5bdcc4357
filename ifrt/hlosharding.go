package ifrt

import (
	"fmt"
	"slices"
	"strings"
)

// OpShardingType is the kind of an OpSharding, numbered as in xla.OpSharding.Type.
type OpShardingType int32

// The OpSharding kinds.
const (
	OpShardingReplicated OpShardingType = 0
	OpShardingMaximal    OpShardingType = 1
	OpShardingTuple      OpShardingType = 2
	OpShardingOther      OpShardingType = 3 // tiled
	OpShardingManual     OpShardingType = 4
	OpShardingUnknown    OpShardingType = 5
	OpShardingUnreduced  OpShardingType = 6
)

// OpSharding is XLA's sharding model, as a plain Go value (field for field the
// xla.OpSharding proto, without the metadata). Device numbers in the tile assignment
// are positions in the device list of the HloSharding that holds it.
type OpSharding struct {
	Type                     OpShardingType
	TileAssignmentDimensions []int64
	// TileAssignmentDevices lists device positions in row-major tile order. When it is
	// empty, the assignment is the iota form: IotaReshapeDims, transposed by
	// IotaTransposePerm, then reshaped to TileAssignmentDimensions.
	TileAssignmentDevices  []int64
	IotaReshapeDims        []int64
	IotaTransposePerm      []int32
	ReplicateOnLastTileDim bool
	// LastTileDims are the kinds of the trailing subgroup dimensions (REPLICATED or
	// MANUAL), after the data dimensions.
	LastTileDims   []OpShardingType
	TupleShardings []OpSharding
}

// TileShape is the shape each device's shard of an array of the given shape
// has, its last tiles padded as XLA pads them: each data dimension divided
// by its tile count, rounded up. Shardings that do not tile (replicated,
// maximal, manual) and tilings of another rank keep the whole shape.
func (o OpSharding) TileShape(shape Shape) Shape {
	out := slices.Clone(shape)
	if o.Type != OpShardingOther || len(o.TileAssignmentDimensions)-o.subgroupDims() != len(shape) {
		return out
	}
	for k, n := range shape {
		if t := o.TileAssignmentDimensions[k]; t > 1 {
			out[k] = (n + t - 1) / t
		}
	}
	return out
}

// Replicated returns the fully replicated OpSharding.
func Replicated() OpSharding { return OpSharding{Type: OpShardingReplicated} }

// Tiled returns the OpSharding that splits each data dimension i into tiles[i] parts,
// with device positions assigned in iota (row-major) order. When numDevices is a
// multiple k>1 of the tile count, each tile is replicated on k devices.
func Tiled(tiles []int64, numDevices int) (OpSharding, error) {
	n := int64(1)
	for _, t := range tiles {
		if t <= 0 {
			return OpSharding{}, Errorf(InvalidArgument, "ifrt: tile count %d must be positive", t)
		}
		n *= t
	}
	if n == 0 || int64(numDevices)%n != 0 {
		return OpSharding{}, Errorf(InvalidArgument, "ifrt: %d tiles do not divide %d devices", n, numDevices)
	}
	dims := slices.Clone(tiles)
	op := OpSharding{Type: OpShardingOther, IotaReshapeDims: []int64{int64(numDevices)}, IotaTransposePerm: []int32{0}}
	if rep := int64(numDevices) / n; rep > 1 {
		dims = append(dims, rep)
		op.ReplicateOnLastTileDim = true
	}
	op.TileAssignmentDimensions = dims
	return op, nil
}

// Assignment returns the tile assignment as a flat row-major list of device
// positions, expanding the iota form.
func (o *OpSharding) Assignment() ([]int64, error) {
	total := int64(1)
	for _, d := range o.TileAssignmentDimensions {
		if d <= 0 {
			return nil, Errorf(InvalidArgument, "ifrt: tile assignment dimension %d must be positive", d)
		}
		total *= d
		if total > 1<<24 {
			return nil, Errorf(InvalidArgument, "ifrt: tile assignment %v is too large", o.TileAssignmentDimensions)
		}
	}
	if len(o.TileAssignmentDevices) > 0 {
		if int64(len(o.TileAssignmentDevices)) != total {
			return nil, Errorf(InvalidArgument, "ifrt: %d tile devices for dimensions %v", len(o.TileAssignmentDevices), o.TileAssignmentDimensions)
		}
		return slices.Clone(o.TileAssignmentDevices), nil
	}
	return iotaAssignment(o.IotaReshapeDims, o.IotaTransposePerm, total)
}

// iotaAssignment reshapes 0..n-1 to reshape, transposes it by perm and flattens it.
func iotaAssignment(reshape []int64, perm []int32, total int64) ([]int64, error) {
	if len(reshape) == 0 {
		reshape = []int64{total}
	}
	if len(perm) == 0 {
		perm = make([]int32, len(reshape))
		for i := range perm {
			perm[i] = int32(i)
		}
	}
	if len(perm) != len(reshape) {
		return nil, Errorf(InvalidArgument, "ifrt: iota transpose %v does not match reshape %v", perm, reshape)
	}
	n := int64(1)
	for _, d := range reshape {
		if d <= 0 {
			return nil, Errorf(InvalidArgument, "ifrt: iota reshape dimension %d must be positive", d)
		}
		n *= d
		if n > total {
			break
		}
	}
	if n != total {
		return nil, Errorf(InvalidArgument, "ifrt: iota reshape %v has %d devices, want %d", reshape, n, total)
	}
	seen := make([]bool, len(reshape))
	transposed := make(Shape, len(perm))
	for i, p := range perm {
		if p < 0 || int(p) >= len(reshape) || seen[p] {
			return nil, Errorf(InvalidArgument, "ifrt: iota transpose %v is not a permutation", perm)
		}
		seen[p] = true
		transposed[i] = reshape[p]
	}
	strides := make([]int64, len(reshape))
	stride := int64(1)
	for k := len(reshape) - 1; k >= 0; k-- {
		strides[k] = stride
		stride *= reshape[k]
	}
	out := make([]int64, total)
	for i := range out {
		coords := unravel(int64(i), transposed)
		var src int64
		for k, c := range coords {
			src += c * strides[perm[k]]
		}
		out[i] = src
	}
	return out, nil
}

// String returns XLA's text form, such as "{devices=[2,4]<=[8]}".
func (o OpSharding) String() string {
	switch o.Type {
	case OpShardingReplicated:
		return "{replicated}"
	case OpShardingManual:
		return "{manual}"
	case OpShardingUnknown:
		return "{unknown}"
	case OpShardingUnreduced:
		return "{unreduced}"
	case OpShardingMaximal:
		dev := int64(0)
		if len(o.TileAssignmentDevices) > 0 {
			dev = o.TileAssignmentDevices[0]
		}
		return fmt.Sprintf("{maximal device=%d}", dev)
	case OpShardingTuple:
		parts := make([]string, len(o.TupleShardings))
		for i, t := range o.TupleShardings {
			parts[i] = t.String()
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	var b strings.Builder
	b.WriteString("{devices=")
	b.WriteString(Shape(o.TileAssignmentDimensions).String())
	if len(o.TileAssignmentDevices) > 0 {
		for i, d := range o.TileAssignmentDevices {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, d)
		}
	} else {
		b.WriteString("<=")
		b.WriteString(Shape(o.IotaReshapeDims).String())
		if len(o.IotaTransposePerm) > 0 && !isIdentity(o.IotaTransposePerm) {
			parts := make([]string, len(o.IotaTransposePerm))
			for i, p := range o.IotaTransposePerm {
				parts[i] = fmt.Sprint(p)
			}
			b.WriteString("T(" + strings.Join(parts, ",") + ")")
		}
	}
	if o.ReplicateOnLastTileDim {
		b.WriteString(" last_tile_dim_replicate")
	}
	if len(o.LastTileDims) > 0 {
		parts := make([]string, len(o.LastTileDims))
		for i, t := range o.LastTileDims {
			parts[i] = strings.Trim(OpSharding{Type: t}.String(), "{}")
		}
		b.WriteString(" last_tile_dims={" + strings.Join(parts, ", ") + "}")
	}
	b.WriteByte('}')
	return b.String()
}

func isIdentity(perm []int32) bool {
	for i, p := range perm {
		if int(p) != i {
			return false
		}
	}
	return true
}

// HloSharding is an IFRT sharding described by an OpSharding over a device list.
type HloSharding struct {
	DeviceList DeviceList
	Kind       MemoryKind
	Spec       OpSharding
}

// NewHloSharding validates spec against devices and returns the sharding.
func NewHloSharding(devices DeviceList, kind MemoryKind, spec OpSharding) (*HloSharding, error) {
	if err := devices.Validate(); err != nil {
		return nil, err
	}
	s := &HloSharding{DeviceList: devices, Kind: kind, Spec: spec}
	if _, err := s.positions(); err != nil {
		return nil, err
	}
	return s, nil
}

// NewReplicatedSharding returns the sharding that places the whole array on every
// device: NewHloSharding(devices, "", Replicated()).
func NewReplicatedSharding(devices DeviceList) (*HloSharding, error) {
	return NewHloSharding(devices, "", Replicated())
}

// NewTiledSharding splits each dimension i of an array into tiles[i] parts over
// devices, one tile count per dimension of the arrays it is for; when there are k
// times more devices than tiles, each tile is replicated on k devices. It is
// NewHloSharding(devices, "", Tiled(tiles, len(devices))). For a sharding that
// replicates the whole array, see NewReplicatedSharding.
func NewTiledSharding(devices DeviceList, tiles ...int64) (*HloSharding, error) {
	spec, err := Tiled(tiles, len(devices))
	if err != nil {
		return nil, err
	}
	return NewHloSharding(devices, "", spec)
}

func (s *HloSharding) Devices() DeviceList    { return s.DeviceList }
func (s *HloSharding) MemoryKind() MemoryKind { return s.Kind }
func (s *HloSharding) isSharding()            {}

func (s *HloSharding) IsFullyReplicated() bool {
	switch s.Spec.Type {
	case OpShardingReplicated:
		return true
	case OpShardingMaximal:
		return len(s.DeviceList) == 1
	case OpShardingOther:
		data := len(s.Spec.TileAssignmentDimensions) - s.subgroupDims()
		for _, d := range s.Spec.TileAssignmentDimensions[:max(data, 0)] {
			if d != 1 {
				return false
			}
		}
		return true
	}
	return false
}

func (s *HloSharding) subgroupDims() int { return s.Spec.subgroupDims() }

// subgroupDims is the number of trailing tile dimensions that are
// subgroups, not data dimensions.
func (o OpSharding) subgroupDims() int {
	n := len(o.LastTileDims)
	if o.ReplicateOnLastTileDim {
		n++
	}
	return n
}

// positions returns, for each tile in row-major order, its device position, after
// checking that every device position appears exactly once.
func (s *HloSharding) positions() ([]int64, error) {
	switch s.Spec.Type {
	case OpShardingReplicated, OpShardingMaximal:
		return nil, nil
	case OpShardingOther:
	default:
		return nil, Errorf(Unimplemented, "ifrt: HLO sharding %v is not supported", s.Spec)
	}
	for _, t := range s.Spec.LastTileDims {
		if t != OpShardingReplicated {
			return nil, Errorf(Unimplemented, "ifrt: HLO sharding %v has a %v subgroup; only replicated subgroups are supported", s.Spec, OpSharding{Type: t})
		}
	}
	if len(s.Spec.TileAssignmentDimensions) < s.subgroupDims() {
		return nil, Errorf(InvalidArgument, "ifrt: HLO sharding %v has fewer tile dimensions than subgroups", s.Spec)
	}
	assign, err := s.Spec.Assignment()
	if err != nil {
		return nil, err
	}
	if len(assign) != len(s.DeviceList) {
		return nil, Errorf(InvalidArgument, "ifrt: HLO sharding %v assigns %d devices, the list has %d", s.Spec, len(assign), len(s.DeviceList))
	}
	seen := make([]bool, len(assign))
	for _, p := range assign {
		if p < 0 || p >= int64(len(seen)) || seen[p] {
			return nil, Errorf(InvalidArgument, "ifrt: HLO sharding %v has device position %d out of range or twice", s.Spec, p)
		}
		seen[p] = true
	}
	return assign, nil
}

// IndexDomains splits each data dimension into its tile count of chunks of
// ceil(dim/tiles) elements (TileShape); trailing chunks may be short or
// empty, as in XLA.
func (s *HloSharding) IndexDomains(shape Shape) ([]IndexDomain, error) {
	if err := shape.Validate(); err != nil {
		return nil, err
	}
	out := make([]IndexDomain, len(s.DeviceList))
	assign, err := s.positions()
	if err != nil {
		return nil, err
	}
	if assign == nil {
		for i := range out {
			out[i] = FullDomain(shape)
		}
		return out, nil
	}
	dims := Shape(s.Spec.TileAssignmentDimensions)
	if data := len(dims) - s.subgroupDims(); data != len(shape) {
		return nil, Errorf(InvalidArgument, "ifrt: HLO sharding %v has %d data dimensions for an array of rank %d (a tiled sharding needs one tile count per dimension; NewReplicatedSharding replicates)", s.Spec, data, len(shape))
	}
	chunks := s.Spec.TileShape(shape)
	for tile, pos := range assign {
		coords := unravel(int64(tile), dims)
		d := make(IndexDomain, len(shape))
		for k, n := range shape {
			chunk := chunks[k]
			d[k] = Range{min(coords[k]*chunk, n), min((coords[k]+1)*chunk, n)}
		}
		out[pos] = d
	}
	return out, nil
}

func (s *HloSharding) WithDevices(devices DeviceList, kind MemoryKind) (Sharding, error) {
	if len(devices) != len(s.DeviceList) {
		return nil, Errorf(InvalidArgument, "ifrt: %v needs %d devices, got %d", s, len(s.DeviceList), len(devices))
	}
	return NewHloSharding(devices, kind, s.Spec)
}

func (s *HloSharding) String() string {
	return fmt.Sprintf("HloSharding(%v devices=%v%s)", s.Spec, s.DeviceList, kindSuffix(s.Kind))
}
