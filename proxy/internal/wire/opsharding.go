package wire

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/xlapb"
)

// maxTupleDepth bounds the nesting of tuple OpShardings accepted from the wire.
const maxTupleDepth = 16

// maxTiles bounds the number of tiles of an OpSharding accepted from the wire,
// as ifrt does.
const maxTiles = 1 << 24

// OpShardingToProto encodes o.
func OpShardingToProto(o ifrt.OpSharding) *xlapb.OpSharding {
	p := &xlapb.OpSharding{
		Type:                     xlapb.OpSharding_Type(o.Type),
		TileAssignmentDimensions: append([]int64(nil), o.TileAssignmentDimensions...),
		TileAssignmentDevices:    append([]int64(nil), o.TileAssignmentDevices...),
		IotaReshapeDims:          append([]int64(nil), o.IotaReshapeDims...),
		IotaTransposePerm:        append([]int32(nil), o.IotaTransposePerm...),
		ReplicateOnLastTileDim:   o.ReplicateOnLastTileDim,
	}
	for _, t := range o.LastTileDims {
		p.LastTileDims = append(p.LastTileDims, xlapb.OpSharding_Type(t))
	}
	for _, t := range o.TupleShardings {
		p.TupleShardings = append(p.TupleShardings, OpShardingToProto(t))
	}
	return p
}

// OpShardingFromProto decodes p. Named (V3) shardings are Unimplemented; op
// metadata and shard groups are dropped. The tile assignment is checked for
// size (at most 2^24 tiles) and consistency; whether it fits a device list is
// checked by ifrt.NewHloSharding.
func OpShardingFromProto(p *xlapb.OpSharding) (ifrt.OpSharding, error) {
	return opShardingFromProto(p, 0)
}

func opShardingFromProto(p *xlapb.OpSharding, depth int) (ifrt.OpSharding, error) {
	if p == nil {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: missing OpSharding")
	}
	if depth > maxTupleDepth {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: OpSharding tuples nest deeper than %d", maxTupleDepth)
	}
	if p.NamedSharding != nil {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.Unimplemented, "wire: named OpShardings are not supported")
	}
	t := p.GetType()
	if t < xlapb.OpSharding_REPLICATED || t > xlapb.OpSharding_UNREDUCED {
		return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: unknown OpSharding type %d", int32(t))
	}
	o := ifrt.OpSharding{
		Type:                     ifrt.OpShardingType(t),
		TileAssignmentDimensions: append([]int64(nil), p.GetTileAssignmentDimensions()...),
		TileAssignmentDevices:    append([]int64(nil), p.GetTileAssignmentDevices()...),
		IotaReshapeDims:          append([]int64(nil), p.GetIotaReshapeDims()...),
		IotaTransposePerm:        append([]int32(nil), p.GetIotaTransposePerm()...),
		ReplicateOnLastTileDim:   p.GetReplicateOnLastTileDim(),
	}
	for _, lt := range p.GetLastTileDims() {
		if lt < xlapb.OpSharding_REPLICATED || lt > xlapb.OpSharding_UNREDUCED {
			return ifrt.OpSharding{}, ifrt.Errorf(ifrt.InvalidArgument, "wire: unknown last tile dim type %d", int32(lt))
		}
		o.LastTileDims = append(o.LastTileDims, ifrt.OpShardingType(lt))
	}
	if _, err := tileCount(o.TileAssignmentDimensions); err != nil {
		return ifrt.OpSharding{}, err
	}
	if _, err := tileCount(o.IotaReshapeDims); err != nil {
		return ifrt.OpSharding{}, err
	}
	for _, ts := range p.GetTupleShardings() {
		sub, err := opShardingFromProto(ts, depth+1)
		if err != nil {
			return ifrt.OpSharding{}, err
		}
		o.TupleShardings = append(o.TupleShardings, sub)
	}
	return o, nil
}

// tileCount returns the product of dims, which must be positive and at most
// maxTiles.
func tileCount(dims []int64) (int64, error) {
	n := int64(1)
	for _, d := range dims {
		if d <= 0 || d > maxTiles {
			return 0, ifrt.Errorf(ifrt.InvalidArgument, "wire: tile dimensions %v must be positive and at most %d", dims, maxTiles)
		}
		n *= d
		if n > maxTiles {
			return 0, ifrt.Errorf(ifrt.InvalidArgument, "wire: tile dimensions %v have more than %d tiles", dims, maxTiles)
		}
	}
	return n, nil
}
