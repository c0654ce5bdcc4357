package stablehlo

import (
	"strconv"
	"strings"
)

// ShardingType mirrors xla.OpSharding.Type.
type ShardingType int

// Sharding types, named as in xla.OpSharding.
const (
	ShardingReplicated ShardingType = iota
	ShardingMaximal
	ShardingOther // tiled
	ShardingManual
	ShardingUnknown
)

func (t ShardingType) String() string {
	return [...]string{"REPLICATED", "MAXIMAL", "OTHER", "MANUAL", "UNKNOWN"}[t]
}

// HloSharding is a parsed HLO sharding string; fields mirror xla.OpSharding.
// A tiled sharding has either TileAssignmentDevices (an explicit list) or
// IotaReshapeDims and IotaTransposePerm (devices = iota(prod(reshape))
// reshaped, transposed by the perm, then reshaped to the tile dims).
type HloSharding struct {
	Type                   ShardingType
	TileAssignmentDims     []int64
	TileAssignmentDevices  []int64
	IotaReshapeDims        []int64
	IotaTransposePerm      []int64
	ReplicateOnLastTileDim bool
	LastTileDims           []string // "manual", "replicated", ... for subgroup dims
}

// Devices returns the tile assignment as an explicit device list in
// row-major tile order, expanding an iota form.
func (s *HloSharding) Devices() []int64 {
	if s.TileAssignmentDevices != nil || s.IotaReshapeDims == nil {
		return s.TileAssignmentDevices
	}
	n := int64(1)
	for _, d := range s.IotaReshapeDims {
		n *= d
	}
	perm := s.IotaTransposePerm
	if perm == nil {
		perm = make([]int64, len(s.IotaReshapeDims))
		for i := range perm {
			perm[i] = int64(i)
		}
	}
	tshape := make([]int64, len(perm))
	for i, p := range perm {
		tshape[i] = s.IotaReshapeDims[p]
	}
	st := strides(s.IotaReshapeDims)
	out := make([]int64, 0, n)
	forEachIndex(tshape, func(idx []int64) {
		src := 0
		for i, p := range perm {
			src += int(idx[i]) * st[p]
		}
		out = append(out, int64(src))
	})
	return out
}

// ParseHloSharding parses the HLO text form of a sharding, as found in
// mhlo.sharding attributes: "{replicated}", "{maximal device=1}",
// "{manual}", "{unknown}", "{devices=[2,2]0,1,2,3}",
// "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
// "{devices=[2,2]<=[2,2]T(1,0)}", "{devices=[2,1,2]<=[4] last_tile_dims={manual}}".
// Tuple shardings are Unimplemented; malformed input is InvalidArgument.
func ParseHloSharding(s string) (*HloSharding, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return nil, invalidf("sharding %q: expected {...}", s)
	}
	body := strings.TrimSpace(t[1 : len(t)-1])
	if strings.HasPrefix(body, "{") {
		return nil, unimplementedf("sharding %q: tuple shardings are not supported", s)
	}
	if i := strings.Index(body, "metadata={"); i >= 0 {
		body = strings.TrimSpace(body[:i])
	}
	bad := func(why string) (*HloSharding, error) { return nil, invalidf("sharding %q: %s", s, why) }
	switch {
	case body == "replicated":
		return &HloSharding{Type: ShardingReplicated}, nil
	case body == "manual":
		return &HloSharding{Type: ShardingManual}, nil
	case body == "unknown":
		return &HloSharding{Type: ShardingUnknown}, nil
	case strings.HasPrefix(body, "maximal"):
		rest := strings.TrimSpace(strings.TrimPrefix(body, "maximal"))
		if !strings.HasPrefix(rest, "device=") {
			return bad("expected device=N")
		}
		d, err := strconv.ParseInt(rest[len("device="):], 10, 64)
		if err != nil || d < 0 {
			return bad("bad device number")
		}
		return &HloSharding{Type: ShardingMaximal, TileAssignmentDims: []int64{1}, TileAssignmentDevices: []int64{d}}, nil
	case !strings.HasPrefix(body, "devices=["):
		return bad("unknown sharding kind")
	}
	out := &HloSharding{Type: ShardingOther}
	rest := body[len("devices="):]
	dims, rest, ok := parseBracketInts(rest)
	if !ok || len(dims) == 0 {
		return bad("bad tile dimensions")
	}
	out.TileAssignmentDims = dims
	total := int64(1)
	for _, d := range dims {
		if d <= 0 {
			return bad("tile dimensions must be positive")
		}
		total *= d
	}
	if strings.HasPrefix(rest, "<=") {
		var reshape []int64
		reshape, rest, ok = parseBracketInts(rest[2:])
		if !ok || len(reshape) == 0 {
			return bad("bad iota dimensions")
		}
		n := int64(1)
		for _, d := range reshape {
			if d <= 0 {
				return bad("iota dimensions must be positive")
			}
			n *= d
		}
		if n != total {
			return bad("iota size does not match the tile dimensions")
		}
		out.IotaReshapeDims = reshape
		if strings.HasPrefix(rest, "T(") {
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				return bad("unterminated T(...)")
			}
			perm, err := parseIntList(rest[2:end])
			if err != nil || !isPermutation(perm, len(reshape)) {
				return bad("bad transpose permutation")
			}
			out.IotaTransposePerm = perm
			rest = rest[end+1:]
		}
	} else {
		end := len(rest)
		if i := strings.IndexByte(rest, ' '); i >= 0 {
			end = i
		}
		devs, err := parseIntList(rest[:end])
		if err != nil || int64(len(devs)) != total {
			return bad("device list does not match the tile dimensions")
		}
		out.TileAssignmentDevices = devs
		rest = rest[end:]
	}
	for _, f := range strings.Fields(strings.ReplaceAll(rest, ", ", ",")) {
		switch {
		case f == "last_tile_dim_replicate":
			out.ReplicateOnLastTileDim = true
		case strings.HasPrefix(f, "last_tile_dims={") && strings.HasSuffix(f, "}"):
			for _, k := range strings.Split(f[len("last_tile_dims={"):len(f)-1], ",") {
				out.LastTileDims = append(out.LastTileDims, strings.TrimSpace(k))
			}
		default:
			return bad("unexpected " + strconv.Quote(f))
		}
	}
	return out, nil
}

func parseBracketInts(s string) ([]int64, string, bool) {
	if !strings.HasPrefix(s, "[") {
		return nil, s, false
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return nil, s, false
	}
	v, err := parseIntList(s[1:end])
	return v, s[end+1:], err == nil
}

func parseIntList(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func isPermutation(p []int64, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || int(v) >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
