package stablehlo

import (
	"errors"
	"strconv"
	"strings"
)

// sdyToHloSharding converts a Shardy attribute such as
// `#sdy.sharding<@mesh, [{"x"}, {}]>` into the HLO sharding string the
// same placement has, e.g. "{devices=[2,1,4]<=[8] last_tile_dim_replicate}",
// so callers see one sharding syntax whichever partitioner JAX used.
// meshes maps mesh names to their "<[...]>" text. When keep is not nil,
// only the axes it accepts shard the value (the manual axes of a
// shard_map body); the others count as replicated.
func sdyToHloSharding(raw string, meshes map[string]string, keep func(axis string) bool) (string, error) {
	body, ok := strings.CutPrefix(raw, "#sdy.sharding<")
	if !ok || !strings.HasSuffix(body, ">") {
		return "", errors.New("not an sdy.sharding")
	}
	body = body[:len(body)-1]
	if !strings.HasPrefix(body, "@") {
		return "", errors.New("inline meshes are not supported")
	}
	comma := strings.IndexByte(body, ',')
	if comma < 0 {
		return "", errors.New("missing dimension shardings")
	}
	names, sizes, deviceIDs, err := parseSdyMesh(meshes[strings.TrimSpace(body[1:comma])])
	if err != nil {
		return "", err
	}
	if len(names) == 0 && len(deviceIDs) == 1 {
		return "{maximal device=" + strconv.FormatInt(deviceIDs[0], 10) + "}", nil
	}
	rest := strings.TrimSpace(body[comma+1:])
	if !strings.HasPrefix(rest, "[") {
		return "", errors.New("missing dimension shardings")
	}
	end := strings.IndexByte(rest, ']')
	// "replicated={...}" only names axes that are unused anyway.
	if end < 0 || strings.Contains(rest[end+1:], "unreduced") {
		return "", errors.New("unsupported sdy sharding")
	}
	axisIndex := map[string]int{}
	for i, n := range names {
		axisIndex[n] = i
	}
	var tile []int64
	var used []int64
	inUse := make([]bool, len(names))
	dims := rest[1:end]
	for len(strings.TrimSpace(dims)) > 0 {
		dims = strings.TrimSpace(dims)
		if !strings.HasPrefix(dims, "{") {
			return "", errors.New("bad dimension sharding")
		}
		close := strings.IndexByte(dims, '}')
		if close < 0 {
			return "", errors.New("bad dimension sharding")
		}
		size := int64(1)
		for _, ax := range strings.Split(dims[1:close], ",") {
			ax = strings.TrimSpace(ax)
			if ax == "" || ax == "?" {
				continue
			}
			name, err := strconv.Unquote(ax)
			if err != nil {
				return "", errors.New("unsupported axis " + ax) // sub-axes "x":(1)2
			}
			i, ok := axisIndex[name]
			if !ok || inUse[i] {
				return "", errors.New("bad axis " + ax)
			}
			if keep != nil && !keep(name) {
				continue
			}
			inUse[i] = true
			used = append(used, int64(i))
			size *= sizes[i]
		}
		tile = append(tile, size)
		dims = strings.TrimPrefix(strings.TrimSpace(dims[close+1:]), ",")
		if p := strings.TrimSpace(dims); strings.HasPrefix(p, "p") { // priorities like p0
			return "", errors.New("unsupported priority")
		}
	}
	total, replicas := int64(1), int64(1)
	perm := append([]int64(nil), used...)
	for i, s := range sizes {
		total *= s
		if !inUse[i] {
			replicas *= s
			perm = append(perm, int64(i))
		}
	}
	if len(used) == 0 || total == replicas {
		return "{replicated}", nil
	}
	if replicas > 1 {
		tile = append(tile, replicas)
	}
	s := "{devices=[" + joinInts(tile) + "]"
	identity := true
	for i, p := range perm {
		identity = identity && p == int64(i)
	}
	switch {
	case deviceIDs != nil:
		// An explicit device order: list the devices tile by tile.
		iota := &HloSharding{IotaReshapeDims: sizes, IotaTransposePerm: perm}
		if int64(len(deviceIDs)) != total {
			return "", errors.New("device_ids do not match the mesh")
		}
		var devs []int64
		for _, d := range iota.Devices() {
			devs = append(devs, deviceIDs[d])
		}
		s += joinInts(devs)
	case identity:
		s += "<=[" + strconv.FormatInt(total, 10) + "]"
	default:
		s += "<=[" + joinInts(sizes) + "]T(" + joinInts(perm) + ")"
	}
	if replicas > 1 {
		s += " last_tile_dim_replicate"
	}
	return s + "}", nil
}

// parseSdyMesh parses `<["x"=2, "y"=4]>` or `<["x"=2], device_ids=[1, 0]>`.
// deviceIDs is nil for the default (iota) order.
func parseSdyMesh(text string) (names []string, sizes, deviceIDs []int64, err error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<[") {
		return nil, nil, nil, errors.New("unsupported mesh " + strconv.Quote(text))
	}
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return nil, nil, nil, errors.New("bad mesh")
	}
	if _, ids, found := strings.Cut(t[end+1:], "device_ids=["); found {
		close := strings.IndexByte(ids, ']')
		if close < 0 {
			return nil, nil, nil, errors.New("bad device_ids")
		}
		if deviceIDs, err = parseIntList(ids[:close]); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, item := range strings.Split(t[2:end], ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		eq := strings.LastIndexByte(item, '=')
		if eq < 0 {
			return nil, nil, nil, errors.New("bad mesh axis")
		}
		name, err := strconv.Unquote(item[:eq])
		if err != nil {
			return nil, nil, nil, err
		}
		size, err := strconv.ParseInt(item[eq+1:], 10, 64)
		if err != nil || size <= 0 {
			return nil, nil, nil, errors.New("bad mesh axis size")
		}
		names, sizes = append(names, name), append(sizes, size)
	}
	return names, sizes, deviceIDs, nil
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}
