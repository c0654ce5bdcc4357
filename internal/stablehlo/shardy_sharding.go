package stablehlo

import (
	"slices"
	"strconv"
	"strings"
)

// splitSdySharding splits `#sdy.sharding<@mesh, [{"a", "b"}, {}, {?}]>`
// into the mesh name and each dimension's axis names and closedness. It
// refuses sub-axes, priorities and unreduced axes.
func splitSdySharding(raw string) (mesh string, dims [][]string, closed []bool, ok bool) {
	body, found := strings.CutPrefix(strings.TrimSpace(raw), "#sdy.sharding<@")
	if !found || !strings.HasSuffix(body, ">") {
		return "", nil, nil, false
	}
	body = body[:len(body)-1]
	comma := strings.IndexByte(body, ',')
	if comma < 0 {
		return "", nil, nil, false
	}
	mesh = strings.TrimSpace(body[:comma])
	rest := strings.TrimSpace(body[comma+1:])
	end := strings.IndexByte(rest, ']')
	if !strings.HasPrefix(rest, "[") || end < 0 || strings.Contains(rest[end+1:], "unreduced") {
		return "", nil, nil, false
	}
	list := strings.TrimSpace(rest[1:end])
	for list != "" {
		if !strings.HasPrefix(list, "{") {
			return "", nil, nil, false
		}
		close := strings.IndexByte(list, '}')
		if close < 0 {
			return "", nil, nil, false
		}
		var axes []string
		isClosed := true
		for _, ax := range strings.Split(list[1:close], ",") {
			ax = strings.TrimSpace(ax)
			switch {
			case ax == "":
			case ax == "?":
				isClosed = false
			default:
				name, err := strconv.Unquote(ax)
				if err != nil {
					return "", nil, nil, false // sub-axes "x":(1)2
				}
				axes = append(axes, name)
			}
		}
		dims, closed = append(dims, axes), append(closed, isClosed)
		list = strings.TrimSpace(list[close+1:])
		if strings.HasPrefix(list, "p") {
			return "", nil, nil, false // priorities
		}
		list = strings.TrimSpace(strings.TrimPrefix(list, ","))
	}
	return mesh, dims, closed, true
}

// canonicalIota writes an iota tile assignment the way XLA prints it: axes
// of size 1 dropped and axes that stay adjacent after the transpose merged,
// e.g. <=[2,2,2]T(1,2,0) as <=[2,4]T(1,0).
func canonicalIota(s string) string {
	h, err := ParseHloSharding(s)
	if err != nil || h.IotaReshapeDims == nil || len(h.LastTileDims) > 0 {
		return s
	}
	dims := slices.Clone(h.IotaReshapeDims)
	perm := slices.Clone(h.IotaTransposePerm)
	if perm == nil {
		for i := range dims {
			perm = append(perm, int64(i))
		}
	}
	drop := func(d int64) { // removes reshape dim d, renumbering perm
		dims = slices.Delete(dims, int(d), int(d)+1)
		perm = slices.DeleteFunc(perm, func(p int64) bool { return p == d })
		for i := range perm {
			if perm[i] > d {
				perm[i]--
			}
		}
	}
	for d := int64(len(dims)) - 1; d >= 0; d-- {
		if dims[d] == 1 && len(dims) > 1 {
			drop(d)
		}
	}
	for merged := true; merged; {
		merged = false
		for i := 1; i < len(perm); i++ {
			if perm[i] == perm[i-1]+1 {
				dims[perm[i-1]] *= dims[perm[i]]
				drop(perm[i])
				merged = true
				break
			}
		}
	}
	out := "{devices=[" + joinInts(h.TileAssignmentDims) + "]<=[" + joinInts(dims) + "]"
	if len(perm) > 1 {
		out += "T(" + joinInts(perm) + ")"
	}
	if h.ReplicateOnLastTileDim {
		out += " last_tile_dim_replicate"
	}
	return out + "}"
}
