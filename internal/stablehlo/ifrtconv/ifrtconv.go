// Package ifrtconv turns what the StableHLO reader finds in a module into
// ifrt's terms: element types into DTypes and HLO sharding annotations into
// OpShardings. The backends that read modules themselves (gocpu, pjrtifrt)
// describe their executables with it. It holds no state.
package ifrtconv

import (
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
)

var dtypes = map[stablehlo.ElemType]ifrt.DType{
	stablehlo.Bool: ifrt.PRED, stablehlo.I8: ifrt.S8, stablehlo.I16: ifrt.S16, stablehlo.I32: ifrt.S32,
	stablehlo.I64: ifrt.S64, stablehlo.U8: ifrt.U8, stablehlo.U16: ifrt.U16, stablehlo.U32: ifrt.U32,
	stablehlo.U64: ifrt.U64, stablehlo.F16: ifrt.F16, stablehlo.BF16: ifrt.BF16, stablehlo.F32: ifrt.F32,
	stablehlo.F64: ifrt.F64, stablehlo.C64: ifrt.C64, stablehlo.C128: ifrt.C128,
	stablehlo.F8E5M2: ifrt.F8E5M2, stablehlo.F8E4M3: ifrt.F8E4M3, stablehlo.F8E3M4: ifrt.F8E3M4,
	stablehlo.F8E4M3FN: ifrt.F8E4M3FN, stablehlo.F8E4M3FNUZ: ifrt.F8E4M3FNUZ,
	stablehlo.F8E5M2FNUZ: ifrt.F8E5M2FNUZ, stablehlo.F8E4M3B11FNUZ: ifrt.F8E4M3B11FNUZ,
	stablehlo.I2: ifrt.S2, stablehlo.I4: ifrt.S4, stablehlo.U2: ifrt.U2, stablehlo.U4: ifrt.U4,
}

// DType is e's ifrt.DType; ok is false for a type the reader has that ifrt
// arrays do not.
func DType(e stablehlo.ElemType) (d ifrt.DType, ok bool) {
	d, ok = dtypes[e]
	return d, ok
}

// CostAttributes is m's cost estimate (stablehlo.Module.Cost) as the
// attributes of compiled.cost_analysis(). XLA reports the partitioned
// program of one device: for an auto-sharded program, written with global
// shapes, this is the whole program's cost divided evenly among its
// partitions; a program with collectives is written per device already.
func CostAttributes(m *stablehlo.Module) ifrt.Attributes {
	c := m.Cost()
	parts := 1.0
	if !m.UsesCollectives() {
		parts = float64(max(m.NumPartitions(), 1))
	}
	return ifrt.Attributes{"flops": c.Flops / parts, "transcendentals": c.Transcendentals / parts, "bytes accessed": c.BytesAccessed / parts}
}

// ElemType is d's element type in the reader's terms; ok is false for a
// DType the interpreter has no type for.
func ElemType(d ifrt.DType) (e stablehlo.ElemType, ok bool) {
	for e, x := range dtypes {
		if x == d {
			return e, true
		}
	}
	return stablehlo.ElemInvalid, false
}

// OpSharding converts a parsed HLO sharding. Replicated, maximal and tiled
// shardings convert, tiled ones with replicated subgroups too; anything else
// is Unimplemented. An iota tile assignment gets its permutation spelled
// out ("<=[8]" is the identity), as XLA wants it.
func OpSharding(hs *stablehlo.HloSharding) (ifrt.OpSharding, error) {
	op := ifrt.OpSharding{
		TileAssignmentDimensions: hs.TileAssignmentDims,
		TileAssignmentDevices:    hs.TileAssignmentDevices,
		IotaReshapeDims:          hs.IotaReshapeDims,
		ReplicateOnLastTileDim:   hs.ReplicateOnLastTileDim,
	}
	for _, p := range hs.IotaTransposePerm {
		op.IotaTransposePerm = append(op.IotaTransposePerm, int32(p))
	}
	if len(op.IotaReshapeDims) > 0 && len(op.IotaTransposePerm) == 0 {
		for i := range op.IotaReshapeDims {
			op.IotaTransposePerm = append(op.IotaTransposePerm, int32(i))
		}
	}
	switch hs.Type {
	case stablehlo.ShardingReplicated:
		op.Type = ifrt.OpShardingReplicated
	case stablehlo.ShardingMaximal:
		op.Type = ifrt.OpShardingMaximal
	case stablehlo.ShardingOther:
		op.Type = ifrt.OpShardingOther
	default:
		return op, ifrt.Errorf(ifrt.Unimplemented, "%v sharding is not supported", hs.Type)
	}
	for _, t := range hs.LastTileDims {
		if t != "replicated" {
			return op, ifrt.Errorf(ifrt.Unimplemented, "%s subgroups are not supported", t)
		}
		op.LastTileDims = append(op.LastTileDims, ifrt.OpShardingReplicated)
	}
	return op, nil
}
