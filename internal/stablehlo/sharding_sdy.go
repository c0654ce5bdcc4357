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
// meshes maps mesh names to their "<[...]>" text.
func sdyToHloSharding(raw string, meshes map[string]string) (string, error) {
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
	names, sizes, err := parseSdyMesh(meshes[strings.TrimSpace(body[1:comma])])
	if err != nil {
		return "", err
	}
	rest := strings.TrimSpace(body[comma+1:])
	if !strings.HasPrefix(rest, "[") {
		return "", errors.New("missing dimension shardings")
	}
	end := strings.IndexByte(rest, ']')
	if end < 0 || strings.Contains(rest[end+1:], "replicated") || strings.Contains(rest[end+1:], "unreduced") {
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
	var b strings.Builder
	b.WriteString("{devices=[")
	for _, t := range tile {
		b.WriteString(strconv.FormatInt(t, 10) + ",")
	}
	if replicas > 1 {
		b.WriteString(strconv.FormatInt(replicas, 10) + ",")
	}
	s := strings.TrimSuffix(b.String(), ",") + "]<=["
	identity := true
	for i, p := range perm {
		identity = identity && p == int64(i)
	}
	if identity {
		s += strconv.FormatInt(total, 10) + "]"
	} else {
		s += joinInts(sizes) + "]T(" + joinInts(perm) + ")"
	}
	if replicas > 1 {
		s += " last_tile_dim_replicate"
	}
	return s + "}", nil
}

// parseSdyMesh parses `<["x"=2, "y"=4]>`; explicit device_ids are not supported.
func parseSdyMesh(text string) ([]string, []int64, error) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "<[") || strings.Contains(t, "device_ids") {
		return nil, nil, errors.New("unsupported mesh " + strconv.Quote(text))
	}
	end := strings.IndexByte(t, ']')
	if end < 0 {
		return nil, nil, errors.New("bad mesh")
	}
	var names []string
	var sizes []int64
	for _, item := range strings.Split(t[2:end], ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		eq := strings.LastIndexByte(item, '=')
		if eq < 0 {
			return nil, nil, errors.New("bad mesh axis")
		}
		name, err := strconv.Unquote(item[:eq])
		if err != nil {
			return nil, nil, err
		}
		size, err := strconv.ParseInt(item[eq+1:], 10, 64)
		if err != nil || size <= 0 {
			return nil, nil, errors.New("bad mesh axis size")
		}
		names, sizes = append(names, name), append(sizes, size)
	}
	return names, sizes, nil
}

func joinInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}
