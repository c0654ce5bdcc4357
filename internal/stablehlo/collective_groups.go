package stablehlo

import (
	"strings"
)

// Process groups of the collective ops, as the StableHLO specification
// defines them ("Collective ops"): every op splits the replica × partition
// grid into groups of flattened ids (replica*num_partitions + partition) and
// runs within each group. Parse resolves them once per op.

// collectiveInfo is what Parse resolves for one collective op.
type collectiveInfo struct {
	groups [][]int  // process groups, in group order; nil for collective_permute
	pairs  [][2]int // collective_permute: (source, target) flattened ids
	err    error    // why the op's attributes do not describe valid groups
}

// groupOf returns the group holding process id and id's index in it, or
// nil and -1.
func (c *collectiveInfo) groupOf(id int) ([]int, int) {
	for _, g := range c.groups {
		for i, x := range g {
			if x == id {
				return g, i
			}
		}
	}
	return nil, -1
}

// resolveCollective fills op.collective for the collective ops.
func (p *parser) resolveCollective(op *operation) {
	name := strings.TrimPrefix(op.Name, "stablehlo.")
	var info collectiveInfo
	if p.mod.numProcesses() < 0 {
		info.err = unimplementedf("a grid of %d replicas × %d partitions is not supported", p.mod.numReplicas, p.mod.numPartitions)
		op.collective = &info
		return
	}
	switch name {
	case "all_reduce", "all_gather", "reduce_scatter":
		info.groups, info.err = p.processGroups(op, true)
	case "all_to_all", "collective_broadcast":
		info.groups, info.err = p.processGroups(op, false)
	case "collective_permute":
		info.pairs, info.err = p.permutePairs(op)
	default:
		return
	}
	op.collective = &info
}

// channelID reads channel_handle's handle (0 when absent).
func channelID(op *operation) int64 {
	a := op.attrs["channel_handle"]
	if a == nil || a.Dict["handle"] == nil {
		return 0
	}
	return a.Dict["handle"].Int
}

func flagSet(op *operation, name string) bool {
	a := op.attrs[name]
	return a != nil && (a.Kind == AttrUnit || (a.Kind == AttrBool && a.Bool))
}

// copyGroups makes n copies of each group of raw, in order: copy k of a group
// holds the process id(member, k) of each of its members.
func copyGroups(raw [][]int, n int, id func(member, k int) int) [][]int {
	var groups [][]int
	for _, g := range raw {
		for k := range n {
			pg := make([]int, len(g))
			for i, member := range g {
				pg[i] = id(member, k)
			}
			groups = append(groups, pg)
		}
	}
	return groups
}

// processGroups applies the op's strategy to its replica_groups. withIDs
// selects the strategies of all_gather, all_reduce and reduce_scatter
// (cross_replica, cross_replica_and_partition, flattened_ids); the others
// use cross_replica and cross_partition.
func (p *parser) processGroups(op *operation, withIDs bool) ([][]int, error) {
	m := p.mod
	R, P := m.numReplicas, m.numPartitions
	channel := channelID(op) > 0
	global := flagSet(op, "use_global_device_ids")
	if global && !channel {
		return nil, invalidf("use_global_device_ids needs a positive channel_handle")
	}
	span := R // the ids the groups are made of
	switch {
	case withIDs && global:
		span = R * P
	case !withIDs && channel:
		span = P
	}
	raw, err := p.replicaGroups(op, span)
	if err != nil {
		return nil, err
	}
	var groups [][]int
	switch {
	case withIDs && global: // flattened_ids
		groups = raw
	case withIDs && channel: // cross_replica_and_partition
		for _, g := range raw {
			var pg []int
			for part := 0; part < P; part++ {
				for _, r := range g {
					pg = append(pg, r*P+part)
				}
			}
			groups = append(groups, pg)
		}
	case channel: // cross_partition: the groups' partitions, in every replica
		groups = copyGroups(raw, R, func(part, r int) int { return r*P + part })
	default: // cross_replica: the groups' replicas, in every partition
		groups = copyGroups(raw, P, func(r, part int) int { return r*P + part })
	}
	// collective_broadcast leaves processes outside every group alone; the
	// others need every process in exactly one group.
	if withIDs || strings.HasSuffix(op.Name, "all_to_all") {
		seen := 0
		for _, g := range groups {
			seen += len(g)
		}
		if seen != R*P {
			return nil, invalidf("replica_groups cover %d of the %d processes", seen, R*P)
		}
	}
	return groups, nil
}

// replicaGroups reads replica_groups as lists of ids in [0, span): a 2-D
// integer constant (-1 pads shorter groups) or a
// #stablehlo.replica_group_mesh_axes. No groups, or empty ones, mean one
// group of every id.
func (p *parser) replicaGroups(op *operation, span int) ([][]int, error) {
	a := op.attrs["replica_groups"]
	var groups [][]int
	switch {
	case a == nil:
	case a.Kind == AttrDense:
		vals, ok := a.Ints()
		shape := a.Type.Shape
		if !ok || len(shape) != 2 || int64(len(vals)) != shape[0]*shape[1] {
			return nil, invalidf("replica_groups must be a 2-D integer constant")
		}
		for g := int64(0); g < shape[0] && shape[1] > 0; g++ {
			var group []int
			for _, v := range vals[g*shape[1] : (g+1)*shape[1]] {
				if v != -1 {
					group = append(group, int(min(max(v, -2), 1<<30)))
				}
			}
			groups = append(groups, group)
		}
	case a.Kind == AttrDialect && a.Str == "stablehlo.replica_group_mesh_axes":
		var err error
		if groups, err = p.meshAxesGroups(a); err != nil {
			return nil, err
		}
	default:
		return nil, invalidf("replica_groups must be a 2-D integer constant or mesh axes")
	}
	if len(groups) == 0 {
		all := make([]int, span)
		for i := range all {
			all[i] = i
		}
		return [][]int{all}, nil
	}
	seen := make([]bool, span)
	for _, g := range groups {
		if len(g) == 0 {
			return nil, invalidf("replica_groups has an empty group")
		}
		for _, id := range g {
			if id < 0 || id >= span || seen[id] {
				return nil, invalidf("replica_groups has id %d twice or outside [0, %d)", id, span)
			}
			seen[id] = true
		}
	}
	return groups, nil
}

// meshAxesGroups flattens #stablehlo.replica_group_mesh_axes<mesh = @m,
// axes = [...]>: processes that differ only in the named axes form a group,
// ordered by those axes in the order named.
func (p *parser) meshAxesGroups(a *Attr) ([][]int, error) {
	mesh, axes := a.Dict["mesh"], a.Dict["axes"]
	if mesh == nil || mesh.Kind != AttrSymbol || axes == nil || axes.Kind != AttrList {
		return nil, unimplementedf("replica_groups mesh axes need a mesh symbol and a list of axes")
	}
	names, sizes, ids, err := parseSdyMesh(p.meshes[mesh.Str])
	if err != nil {
		return nil, unimplementedf("replica_groups mesh @%s: %v", mesh.Str, err)
	}
	total := 1
	for _, s := range sizes {
		if total *= int(s); total > maxProcesses {
			return nil, invalidf("mesh @%s has more than %d devices", mesh.Str, maxProcesses)
		}
	}
	if ids == nil {
		ids = make([]int64, total)
		for i := range ids {
			ids[i] = int64(i)
		}
	}
	if len(ids) != total {
		return nil, invalidf("mesh @%s has %d device ids for %d devices", mesh.Str, len(ids), total)
	}
	var comm []int // mesh axis positions communicated over, in order
	for _, ax := range axes.List {
		name := ax.Dict["name"]
		if ax.Kind != AttrDialect || name == nil || name.Kind != AttrString || ax.Dict["sub_axis_info"] != nil {
			return nil, unimplementedf("replica_groups: only whole mesh axes are supported")
		}
		i := indexOf(names, name.Str)
		if i < 0 || containsIndex(comm, i) {
			return nil, invalidf("replica_groups: axis %q is not in mesh @%s or named twice", name.Str, mesh.Str)
		}
		comm = append(comm, i)
	}
	// Order the mesh axes: the others first, then the communicated ones;
	// consecutive runs of the group size are the groups.
	var order []int
	for i := range names {
		if !containsIndex(comm, i) {
			order = append(order, i)
		}
	}
	order = append(order, comm...)
	shape := make([]int64, len(order))
	for k, i := range order {
		shape[k] = sizes[i]
	}
	st := strides(sizes)
	size := 1
	for _, i := range comm {
		size *= int(sizes[i])
	}
	var groups [][]int
	var group []int
	forEachIndex(shape, func(idx []int64) {
		pos := 0
		for k, i := range order {
			pos += int(idx[k]) * st[i]
		}
		group = append(group, int(ids[pos]))
		if len(group) == size {
			groups, group = append(groups, group), nil
		}
	})
	return groups, nil
}

// permutePairs reads collective_permute's source_target_pairs as flattened
// ids: pairs of replica ids for every partition (no channel) or of
// partition ids for every replica.
func (p *parser) permutePairs(op *operation) ([][2]int, error) {
	m := p.mod
	R, P := m.numReplicas, m.numPartitions
	a := op.attrs["source_target_pairs"]
	vals, ok := a.Ints()
	if a == nil || a.Kind != AttrDense || !ok || len(a.Type.Shape) != 2 || (len(vals) > 0 && a.Type.Shape[1] != 2) || int64(len(vals)) != a.Type.NumElements() {
		return nil, invalidf("source_target_pairs must be an N×2 integer constant")
	}
	channel := channelID(op) > 0
	span := R
	if channel {
		span = P
	}
	sources, targets := make([]bool, span), make([]bool, span)
	var pairs [][2]int
	for k := 0; k+1 < len(vals); k += 2 {
		s, t := vals[k], vals[k+1]
		if s < 0 || t < 0 || s >= int64(span) || t >= int64(span) || sources[s] || targets[t] {
			return nil, invalidf("source_target_pairs has pair (%d, %d) outside [0, %d) or a source or target twice", s, t, span)
		}
		sources[s], targets[t] = true, true
		if channel {
			for r := 0; r < R; r++ {
				pairs = append(pairs, [2]int{r*P + int(s), r*P + int(t)})
			}
		} else {
			for part := 0; part < P; part++ {
				pairs = append(pairs, [2]int{int(s)*P + part, int(t)*P + part})
			}
		}
	}
	return pairs, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func containsIndex(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}
