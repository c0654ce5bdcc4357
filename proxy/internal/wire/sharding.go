package wire

import (
	"google.golang.org/protobuf/proto"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// Serialized type names of the IFRT shardings (ShardingProto.serialized_sharding.type_name).
const (
	TypeSingleDeviceSharding  = "xla::ifrt::SingleDeviceSharding"
	TypeOpaqueSharding        = "xla::ifrt::OpaqueSharding"
	TypeConcreteSharding      = "xla::ifrt::ConcreteSharding"
	TypeConcreteEvenSharding  = "xla::ifrt::ConcreteEvenSharding"
	TypeShardingParamSharding = "xla::ifrt::ShardingParamSharding"
	TypeHloSharding           = "xla::ifrt::HloSharding"
)

// memoryKindToProto returns nil for the default memory kind, which the wire
// spells as an absent field.
func memoryKindToProto(k ifrt.MemoryKind) *string {
	if k == "" {
		return nil
	}
	s := string(k)
	return &s
}

func memoryKindFromProto(s *string) ifrt.MemoryKind {
	if s == nil {
		return ""
	}
	return ifrt.MemoryKind(*s)
}

// ShardingToProto encodes s. SingleDeviceSharding, ConcreteSharding,
// ConcreteEvenSharding and HloSharding have wire forms; other shardings are
// Unimplemented.
func ShardingToProto(s ifrt.Sharding) (*proxypb.ShardingProto, error) {
	var (
		typeName string
		payload  proto.Message
	)
	switch s := s.(type) {
	case *ifrt.SingleDeviceSharding:
		if s.Device == nil {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: single-device sharding without a device")
		}
		typeName = TypeSingleDeviceSharding
		payload = &proxypb.SingleDeviceShardingProto{DeviceId: int32(s.Device.ID), MemoryKind: memoryKindToProto(s.Kind)}
	case *ifrt.ConcreteSharding:
		p := &proxypb.ConcreteShardingProto{
			Devices:             DeviceListToProto(s.DeviceList),
			MemoryKind:          memoryKindToProto(s.Kind),
			ShapeOrDynamicShape: &proxypb.ConcreteShardingProto_Shape{Shape: ShapeToProto(s.Shape)},
		}
		for _, sh := range s.ShardShapes {
			p.ShardShapes = append(p.ShardShapes, ShapeToProto(sh))
		}
		typeName, payload = TypeConcreteSharding, p
	case *ifrt.ConcreteEvenSharding:
		typeName = TypeConcreteEvenSharding
		payload = &proxypb.ConcreteEvenShardingProto{
			Devices:           DeviceListToProto(s.DeviceList),
			MemoryKind:        memoryKindToProto(s.Kind),
			Shape:             ShapeToProto(s.Shape),
			ShardShape:        ShapeToProto(s.ShardShape),
			IsFullyReplicated: s.FullyReplicated,
		}
	case *ifrt.HloSharding:
		typeName = TypeHloSharding
		payload = &proxypb.HloShardingProto{
			Devices:       DeviceListToProto(s.DeviceList),
			MemoryKind:    memoryKindToProto(s.Kind),
			XlaOpSharding: OpShardingToProto(s.Spec),
		}
	case nil:
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing sharding")
	default:
		return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: sharding %v has no wire form", s)
	}
	data, err := proto.Marshal(payload)
	if err != nil {
		return nil, ifrt.Errorf(ifrt.Internal, "wire: encoding %s: %v", typeName, err)
	}
	return &proxypb.ShardingProto{SerializedSharding: &proxypb.Serialized{TypeName: typeName, Data: data}}, nil
}

// ShardingFromProto decodes p, resolving device ids with lookup. It accepts
// the six IFRT sharding types: ShardingParamSharding becomes the equivalent
// HloSharding; OpaqueSharding, which says nothing about how an array is split,
// is Unimplemented. The result is validated (device lists, tile assignments,
// and for concrete shardings the split of their own shape).
func ShardingFromProto(p *proxypb.ShardingProto, lookup DeviceLookup) (ifrt.Sharding, error) {
	if lookup == nil {
		return nil, ifrt.Errorf(ifrt.Internal, "wire: no device lookup")
	}
	ser := p.GetSerializedSharding()
	if ser == nil {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing sharding")
	}
	switch ser.GetTypeName() {
	case TypeSingleDeviceSharding:
		var m proxypb.SingleDeviceShardingProto
		if err := unmarshal(ser, &m); err != nil {
			return nil, err
		}
		d, err := lookup(ifrt.DeviceID(m.GetDeviceId()))
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, ifrt.Errorf(ifrt.NotFound, "wire: no device %d", m.GetDeviceId())
		}
		return ifrt.NewSingleDeviceSharding(d, memoryKindFromProto(m.MemoryKind)), nil

	case TypeOpaqueSharding:
		return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: opaque shardings are not supported: they do not say how an array is split")

	case TypeConcreteSharding:
		var m proxypb.ConcreteShardingProto
		devs, err := unmarshalWithDevices(ser, &m, lookup)
		if err != nil {
			return nil, err
		}
		if m.GetDynamicShape() != nil || len(m.GetShardDynamicShapes()) > 0 {
			return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: dynamic shapes are not supported")
		}
		if len(m.ProtoReflect().GetUnknown()) > 0 {
			// jaxlib 0.12.1 adds index_domains (field 8), where each shard
			// lies; without them the default layout would be a silent misread.
			return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: a concrete sharding carries fields this server does not know (index domains?)")
		}
		shape, err := ShapeFromProto(m.GetShape())
		if err != nil {
			return nil, err
		}
		s := &ifrt.ConcreteSharding{DeviceList: devs, Kind: memoryKindFromProto(m.MemoryKind), Shape: shape}
		for _, sp := range m.GetShardShapes() {
			sh, err := ShapeFromProto(sp)
			if err != nil {
				return nil, err
			}
			s.ShardShapes = append(s.ShardShapes, sh)
		}
		if _, err := s.IndexDomains(shape); err != nil {
			return nil, err
		}
		return s, nil

	case TypeConcreteEvenSharding:
		var m proxypb.ConcreteEvenShardingProto
		devs, err := unmarshalWithDevices(ser, &m, lookup)
		if err != nil {
			return nil, err
		}
		shape, err := ShapeFromProto(m.GetShape())
		if err != nil {
			return nil, err
		}
		shard, err := ShapeFromProto(m.GetShardShape())
		if err != nil {
			return nil, err
		}
		s := &ifrt.ConcreteEvenSharding{
			DeviceList: devs, Kind: memoryKindFromProto(m.MemoryKind),
			Shape: shape, ShardShape: shard, FullyReplicated: m.GetIsFullyReplicated(),
		}
		if err := checkEvenSplit(s); err != nil {
			return nil, err
		}
		if _, err := s.IndexDomains(shape); err != nil {
			return nil, err
		}
		return s, nil

	case TypeShardingParamSharding:
		var m proxypb.ShardingParamShardingProto
		devs, err := unmarshalWithDevices(ser, &m, lookup)
		if err != nil {
			return nil, err
		}
		spec, err := ShardingParamToOpSharding(m.GetShardingParam(), len(devs))
		if err != nil {
			return nil, err
		}
		return ifrt.NewHloSharding(devs, memoryKindFromProto(m.MemoryKind), spec)

	case TypeHloSharding:
		var m proxypb.HloShardingProto
		devs, err := unmarshalWithDevices(ser, &m, lookup)
		if err != nil {
			return nil, err
		}
		spec, err := OpShardingFromProto(m.GetXlaOpSharding())
		if err != nil {
			return nil, err
		}
		if spec.Type == ifrt.OpShardingOther {
			n, _ := tileCount(spec.TileAssignmentDimensions)
			if n != int64(len(devs)) {
				return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: HLO sharding %v has %d tiles for %d devices", spec, n, len(devs))
			}
		}
		return ifrt.NewHloSharding(devs, memoryKindFromProto(m.MemoryKind), spec)
	}
	return nil, ifrt.Errorf(ifrt.Unimplemented, "wire: unknown sharding type %q", ser.GetTypeName())
}

// checkEvenSplit guards ConcreteEvenSharding.IndexDomains against products
// that overflow: the tile grid must have exactly one tile per device.
func checkEvenSplit(s *ifrt.ConcreteEvenSharding) error {
	if s.FullyReplicated {
		return nil
	}
	if len(s.ShardShape) != len(s.Shape) {
		return ifrt.Errorf(ifrt.InvalidArgument, "wire: shard shape %v has another rank than %v", s.ShardShape, s.Shape)
	}
	tiles := int64(1)
	for i, n := range s.Shape {
		k := s.ShardShape[i]
		if n == 0 && k == 0 {
			continue
		}
		if k <= 0 || n%k != 0 {
			return ifrt.Errorf(ifrt.InvalidArgument, "wire: shard shape %v does not evenly divide %v", s.ShardShape, s.Shape)
		}
		tiles *= n / k
		if tiles > int64(len(s.DeviceList)) {
			return ifrt.Errorf(ifrt.InvalidArgument, "wire: shard shape %v splits %v into more tiles than %d devices", s.ShardShape, s.Shape, len(s.DeviceList))
		}
	}
	return nil
}

// ShardingParamToOpSharding converts an IFRT ShardingParam over numDevices
// devices to the equivalent OpSharding (device numbers are positions in the
// sharding's device list), as upstream's ToHloSharding does: the mesh axes,
// listed minor to major, become an iota reshape listed major to minor, the
// permutation is inverted accordingly, and devices left over by the data
// dimensions form a replicated last tile dimension.
func ShardingParamToOpSharding(p *proxypb.ShardingParamProto, numDevices int) (ifrt.OpSharding, error) {
	if p == nil {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing sharding param")
	}
	if len(p.ProtoReflect().GetUnknown()) > 0 {
		// Newer clients add unreduced axes (field 5), which an OpSharding
		// without the UNREDUCED subgroup support of ifrt cannot express.
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.Unimplemented, "wire: sharding param carries fields this server does not know (unreduced axes?)")
	}
	axes, perm := p.GetAxisSizes(), p.GetPermutation()
	if len(axes) != len(perm) {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param has %d axis sizes and %d permutation entries", len(axes), len(perm))
	}
	if len(p.GetDimShards()) > MaxRank || len(axes) > MaxRank {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param has too many dimensions")
	}
	reshape := make([]int64, len(axes))
	count := int64(1)
	for i, a := range axes {
		if a <= 0 {
			return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param axis size %d must be positive", a)
		}
		reshape[len(axes)-1-i] = int64(a)
		count *= int64(a)
		if count > maxTiles {
			return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param axes %v are too large", axes)
		}
	}
	if count != int64(numDevices) {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param axes %v cover %d devices, the list has %d", axes, count, numDevices)
	}
	seen := make([]bool, len(perm))
	transpose := make([]int32, len(perm))
	for i, a := range perm {
		if a < 0 || int(a) >= len(perm) || seen[a] {
			return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param permutation %v is not a permutation", perm)
		}
		seen[a] = true
		transpose[len(perm)-1-i] = int32(len(perm)) - a - 1
	}
	dims, err := tileDims(p.GetDimShards())
	if err != nil {
		return ifrt.OpSharding{}, err
	}
	if count == 1 {
		return ifrt.Replicated(), nil
	}
	tiles := int64(1)
	for _, d := range dims {
		tiles *= d
	}
	if count%tiles != 0 {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: sharding param dim shards %v do not divide %d devices", dims, count)
	}
	o := ifrt.OpSharding{Type: ifrt.OpShardingOther, IotaReshapeDims: reshape, IotaTransposePerm: transpose}
	if tiles != count {
		dims = append(dims, count/tiles)
		o.ReplicateOnLastTileDim = true
	}
	o.TileAssignmentDimensions = dims
	return o, nil
}

func tileDims(shards []int64) ([]int64, error) {
	if _, err := tileCount(shards); err != nil {
		return nil, err
	}
	return append([]int64{}, shards...), nil
}

// unmarshalWithDevices decodes ser into m, a payload that names its
// devices, and resolves them with lookup.
func unmarshalWithDevices(ser *proxypb.Serialized, m interface {
	proto.Message
	GetDevices() *proxypb.DeviceListProto
}, lookup DeviceLookup) (ifrt.DeviceList, error) {
	if err := unmarshal(ser, m); err != nil {
		return nil, err
	}
	return DeviceListFromProto(m.GetDevices(), lookup)
}

func unmarshal(ser *proxypb.Serialized, m proto.Message) error {
	if err := proto.Unmarshal(ser.GetData(), m); err != nil {
		return ifrt.Errorf(ifrt.InvalidArgument, "wire: malformed %s: %v", ser.GetTypeName(), err)
	}
	return nil
}
