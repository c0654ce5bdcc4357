package stablehlo

// placement says which block of a global value each partition of an SPMD
// program holds, as an HLO sharding over the program's partitions lays it
// out: every data dimension d is cut into tiles[d] chunks of
// ceil(dim/tiles[d]) elements (trailing chunks may be short or empty, as in
// XLA and ifrt), and partitions sharing a tile hold copies of it.
type placement struct {
	shape  []int64
	tiles  []int64 // tile count per dimension
	tileOf []int   // partition -> tile, row-major over tiles
}

// replicatedPlacement gives every partition the whole value.
func replicatedPlacement(shape []int64, partitions int) *placement {
	pl := &placement{shape: shape, tiles: make([]int64, len(shape)), tileOf: make([]int, partitions)}
	for d := range pl.tiles {
		pl.tiles[d] = 1
	}
	return pl
}

// placementOf lays out a value of shape by sharding s (nil or "" means
// replicated) over partitions.
func placementOf(s *HloSharding, shape []int64, partitions int) (*placement, error) {
	if s == nil || s.Type == ShardingReplicated || s.Type == ShardingMaximal {
		return replicatedPlacement(shape, partitions), nil
	}
	if s.Type != ShardingOther {
		return nil, unimplementedf("a %s sharding does not place a global value on partitions", s.Type)
	}
	for _, k := range s.LastTileDims {
		if k != "replicated" {
			return nil, unimplementedf("sharding subgroups of kind %q are not supported (partially manual GSPMD regions)", k)
		}
	}
	dims := s.TileAssignmentDims
	data := len(dims) - len(s.LastTileDims)
	if s.ReplicateOnLastTileDim {
		data--
	}
	if data != len(shape) {
		return nil, invalidf("sharding has %d data dimensions for a value of rank %d", max(data, 0), len(shape))
	}
	total := int64(1)
	for _, d := range dims {
		if total *= d; d <= 0 || total > int64(partitions) {
			break
		}
	}
	if total != int64(partitions) {
		return nil, invalidf("sharding %v does not place the %d partitions of the program", dims, partitions)
	}
	devs := s.Devices()
	if len(devs) != partitions {
		return nil, invalidf("sharding places %d devices in a program of %d partitions", len(devs), partitions)
	}
	pl := &placement{shape: shape, tiles: dims[:data], tileOf: make([]int, partitions)}
	seen := make([]bool, partitions)
	st := strides(dims)
	tst := strides(pl.tiles)
	for k, d := range devs {
		if d < 0 || d >= int64(partitions) || seen[d] {
			return nil, invalidf("sharding names partition %d twice or outside [0, %d)", d, partitions)
		}
		seen[d] = true
		tile := 0
		for i := 0; i < data; i++ {
			tile += (k / st[i] % int(dims[i])) * tst[i]
		}
		pl.tileOf[d] = tile
	}
	return pl, nil
}

// placementFor parses a sharding string ("" is replicated) and lays out a
// value of type t.
func placementFor(sharding string, t TensorType, partitions int) (*placement, error) {
	if sharding == "" {
		return replicatedPlacement(t.Shape, partitions), nil
	}
	s, err := ParseHloSharding(sharding)
	if err != nil {
		return nil, err
	}
	return placementOf(s, t.Shape, partitions)
}

func (pl *placement) replicated() bool {
	for _, t := range pl.tiles {
		if t != 1 {
			return false
		}
	}
	return true
}

// block returns the start and limit indices of partition p's block.
func (pl *placement) block(p int) (start, limit []int64) {
	start, limit = make([]int64, len(pl.shape)), make([]int64, len(pl.shape))
	tile := pl.tileOf[p]
	tst := strides(pl.tiles)
	for d, n := range pl.shape {
		c := int64(tile / tst[d] % int(pl.tiles[d]))
		chunk := (n + pl.tiles[d] - 1) / pl.tiles[d]
		start[d], limit[d] = min(c*chunk, n), min((c+1)*chunk, n)
	}
	return start, limit
}

// firstHolders maps each tile to the lowest partition holding it, the one
// that sends the tile wherever it is missing.
func (pl *placement) firstHolders() map[int]int {
	first := map[int]int{}
	for p := len(pl.tileOf) - 1; p >= 0; p-- {
		first[pl.tileOf[p]] = p
	}
	return first
}

// localType is the type of partition p's block of a value of type t.
func (pl *placement) localType(t TensorType, p int) TensorType {
	start, limit := pl.block(p)
	out := TensorType{Elem: t.Elem, Shape: make([]int64, len(start))}
	for d := range start {
		out.Shape[d] = limit[d] - start[d]
	}
	return out
}

// same reports whether two placements put the same blocks on the same
// partitions.
func (pl *placement) same(o *placement) bool {
	if !shapesEqual(pl.shape, o.shape) || len(pl.tileOf) != len(o.tileOf) {
		return false
	}
	if pl.replicated() || o.replicated() {
		return pl.replicated() && o.replicated()
	}
	if !shapesEqual(pl.tiles, o.tiles) {
		return false
	}
	for p := range pl.tileOf {
		if pl.tileOf[p] != o.tileOf[p] {
			return false
		}
	}
	return true
}
