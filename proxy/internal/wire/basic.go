package wire

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
)

// DeviceLookup resolves a device id; ifrt.Client.LookupDevice is one.
type DeviceLookup func(ifrt.DeviceID) (*ifrt.Device, error)

// MaxRank bounds the rank of shapes accepted from the wire.
const MaxRank = 64

// dtypeKinds maps every ifrt dtype to its DTypeProto kind. The IFRT kind
// numbering happens to equal ifrt.DType's, but not xla.PrimitiveType's
// (F4E2M1FN, F8E8M0FNU, STRING), so the table is written out rather than cast.
var dtypeKinds = map[ifrt.DType]proxypb.DTypeProto_Kind{
	ifrt.PRED:          proxypb.DTypeProto_KIND_PRED,
	ifrt.S2:            proxypb.DTypeProto_KIND_S2,
	ifrt.S4:            proxypb.DTypeProto_KIND_S4,
	ifrt.S8:            proxypb.DTypeProto_KIND_S8,
	ifrt.S16:           proxypb.DTypeProto_KIND_S16,
	ifrt.S32:           proxypb.DTypeProto_KIND_S32,
	ifrt.S64:           proxypb.DTypeProto_KIND_S64,
	ifrt.U2:            proxypb.DTypeProto_KIND_U2,
	ifrt.U4:            proxypb.DTypeProto_KIND_U4,
	ifrt.U8:            proxypb.DTypeProto_KIND_U8,
	ifrt.U16:           proxypb.DTypeProto_KIND_U16,
	ifrt.U32:           proxypb.DTypeProto_KIND_U32,
	ifrt.U64:           proxypb.DTypeProto_KIND_U64,
	ifrt.F16:           proxypb.DTypeProto_KIND_F16,
	ifrt.F32:           proxypb.DTypeProto_KIND_F32,
	ifrt.F64:           proxypb.DTypeProto_KIND_F64,
	ifrt.BF16:          proxypb.DTypeProto_KIND_BF16,
	ifrt.C64:           proxypb.DTypeProto_KIND_C64,
	ifrt.C128:          proxypb.DTypeProto_KIND_C128,
	ifrt.TOKEN:         proxypb.DTypeProto_KIND_TOKEN,
	ifrt.F8E3M4:        proxypb.DTypeProto_KIND_F8E3M4,
	ifrt.F8E4M3:        proxypb.DTypeProto_KIND_F8E4M3,
	ifrt.F8E4M3FN:      proxypb.DTypeProto_KIND_F8E4M3FN,
	ifrt.F8E4M3B11FNUZ: proxypb.DTypeProto_KIND_F8E4M3B11FNUZ,
	ifrt.F8E4M3FNUZ:    proxypb.DTypeProto_KIND_F8E4M3FNUZ,
	ifrt.F8E5M2:        proxypb.DTypeProto_KIND_F8E5M2,
	ifrt.F8E5M2FNUZ:    proxypb.DTypeProto_KIND_F8E5M2FNUZ,
	ifrt.F8E8M0FNU:     proxypb.DTypeProto_KIND_F8E8M0FNU,
	ifrt.F4E2M1FN:      proxypb.DTypeProto_KIND_F4E2M1FN,
	ifrt.STRING:        proxypb.DTypeProto_KIND_STRING,
}

var kindDTypes = func() map[proxypb.DTypeProto_Kind]ifrt.DType {
	m := make(map[proxypb.DTypeProto_Kind]ifrt.DType, len(dtypeKinds))
	for d, k := range dtypeKinds {
		m[k] = d
	}
	return m
}()

// DTypeToProto encodes d.
func DTypeToProto(d ifrt.DType) (*proxypb.DTypeProto, error) {
	k, ok := dtypeKinds[d]
	if !ok {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: dtype %v has no IFRT proto kind", d)
	}
	return &proxypb.DTypeProto{Kind: k}, nil
}

// DTypeFromProto decodes p; a missing or unknown kind is InvalidArgument, the
// OPAQUE kind (which ifrt has no type for) Unimplemented.
func DTypeFromProto(p *proxypb.DTypeProto) (ifrt.DType, error) {
	if p == nil {
		return ifrt.InvalidDType, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing dtype")
	}
	if p.GetKind() == proxypb.DTypeProto_KIND_OPAQUE {
		return ifrt.InvalidDType, ifrt.Errorf(ifrt.Unimplemented, "wire: opaque dtypes are not supported")
	}
	d, ok := kindDTypes[p.GetKind()]
	if !ok {
		return ifrt.InvalidDType, ifrt.Errorf(ifrt.InvalidArgument, "wire: unknown dtype kind %d", int32(p.GetKind()))
	}
	return d, nil
}

// ShapeToProto encodes s.
func ShapeToProto(s ifrt.Shape) *proxypb.ShapeProto {
	return &proxypb.ShapeProto{Dims: append([]int64(nil), s...)}
}

// ShapeFromProto decodes p (nil is a scalar) and validates it: no negative
// dimension, no element count overflow, rank at most MaxRank.
func ShapeFromProto(p *proxypb.ShapeProto) (ifrt.Shape, error) {
	return DimsToShape(p.GetDims())
}

// DimsToShape validates dims as ShapeFromProto does and returns them as a
// Shape that does not share memory with dims.
func DimsToShape(dims []int64) (ifrt.Shape, error) {
	if len(dims) > MaxRank {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: rank %d exceeds the maximum %d", len(dims), MaxRank)
	}
	s := ifrt.Shape(append([]int64{}, dims...))
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// DeviceIDs returns the ids of l as the wire's int32s.
func DeviceIDs(l ifrt.DeviceList) []int32 {
	out := make([]int32, len(l))
	for i, d := range l {
		out[i] = int32(d.ID)
	}
	return out
}

// DeviceListToProto encodes l.
func DeviceListToProto(l ifrt.DeviceList) *proxypb.DeviceListProto {
	return &proxypb.DeviceListProto{DeviceIds: DeviceIDs(l)}
}

// DeviceListFromIDs resolves ids with lookup. The list must be non-empty and
// free of duplicates.
func DeviceListFromIDs(ids []int32, lookup DeviceLookup) (ifrt.DeviceList, error) {
	if lookup == nil {
		return nil, ifrt.Errorf(ifrt.Internal, "wire: no device lookup")
	}
	if len(ids) == 0 {
		return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: empty device list")
	}
	out := make(ifrt.DeviceList, len(ids))
	seen := make(map[int32]bool, len(ids))
	for i, id := range ids {
		if seen[id] {
			return nil, ifrt.Errorf(ifrt.InvalidArgument, "wire: device %d appears twice in a device list", id)
		}
		seen[id] = true
		d, err := lookup(ifrt.DeviceID(id))
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, ifrt.Errorf(ifrt.NotFound, "wire: no device %d", id)
		}
		out[i] = d
	}
	return out, nil
}

// DeviceListFromProto decodes p with DeviceListFromIDs.
func DeviceListFromProto(p *proxypb.DeviceListProto, lookup DeviceLookup) (ifrt.DeviceList, error) {
	return DeviceListFromIDs(p.GetDeviceIds(), lookup)
}

// ByteStridesToProto encodes strides; nil (dense row-major) stays nil.
func ByteStridesToProto(strides []int64) *proxypb.ByteStrides {
	if strides == nil {
		return nil
	}
	return &proxypb.ByteStrides{Strides: append([]int64{}, strides...)}
}

// ByteStridesFromProto decodes p: nil means dense row-major (nil strides); a
// present message always yields a non-nil slice, empty for scalars. The strides
// are checked against a shape later, by ifrt.StridedRegionSize.
func ByteStridesFromProto(p *proxypb.ByteStrides) []int64 {
	if p == nil {
		return nil
	}
	return append([]int64{}, p.GetStrides()...)
}

// CopySemanticsToProto encodes s.
func CopySemanticsToProto(s ifrt.CopySemantics) proxypb.ArrayCopySemantics {
	switch s {
	case ifrt.AlwaysCopy:
		return proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY
	case ifrt.ReuseInput:
		return proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT
	case ifrt.DonateInput:
		return proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_DONATE_INPUT
	}
	return proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_UNSPECIFIED
}

// CopySemanticsFromProto decodes p; UNSPECIFIED and unknown values are
// InvalidArgument, as upstream.
func CopySemanticsFromProto(p proxypb.ArrayCopySemantics) (ifrt.CopySemantics, error) {
	switch p {
	case proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_ALWAYS_COPY:
		return ifrt.AlwaysCopy, nil
	case proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_REUSE_INPUT:
		return ifrt.ReuseInput, nil
	case proxypb.ArrayCopySemantics_ARRAY_COPY_SEMANTICS_DONATE_INPUT:
		return ifrt.DonateInput, nil
	}
	return 0, ifrt.Errorf(ifrt.InvalidArgument, "wire: unhandled array copy semantics %d", int32(p))
}

// ShardSemantics says which shards of an array an assemble or disassemble
// request covers. In a single-process setup the two are the same.
type ShardSemantics int

const (
	// AllShards covers every shard, addressable or not (the default when the
	// request leaves the field unset).
	AllShards ShardSemantics = iota
	// AddressableShards covers the shards on addressable devices only.
	AddressableShards
)

// ShardSemanticsToProto encodes s.
func ShardSemanticsToProto(s ShardSemantics) *proxypb.SingleDeviceShardSemantics {
	v := proxypb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_ALL_SHARDS
	if s == AddressableShards {
		v = proxypb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_ADDRESSABLE_SHARDS
	}
	return &v
}

// ShardSemanticsFromProto decodes p; absent or UNSPECIFIED means AllShards.
func ShardSemanticsFromProto(p *proxypb.SingleDeviceShardSemantics) (ShardSemantics, error) {
	if p == nil {
		return AllShards, nil
	}
	switch *p {
	case proxypb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_ALL_SHARDS,
		proxypb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_UNSPECIFIED:
		return AllShards, nil
	case proxypb.SingleDeviceShardSemantics_SINGLE_DEVICE_SHARD_SEMANTICS_ADDRESSABLE_SHARDS:
		return AddressableShards, nil
	}
	return 0, ifrt.Errorf(ifrt.InvalidArgument, "wire: unhandled single-device shard semantics %d", int32(*p))
}
