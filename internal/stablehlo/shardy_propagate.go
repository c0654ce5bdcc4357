package stablehlo

import (
	"slices"
	"sort"
)

// applyConstraints gives the input of a fully closed sharding constraint
// the constraint's sharding when it has none, as sdy-apply-sharding-
// constraints does.
func (e *sdyEngine) applyConstraints() {
	for _, n := range e.nodes {
		if n.name != "sdy.sharding_constraint" || len(n.operands) != 1 {
			continue
		}
		in, t := e.vals[n.operands[0]], e.vals[n.results[0]].t
		if in.t.set || in.constant || len(in.shape) == 0 || slices.Contains(t.closed, false) {
			continue
		}
		apply := true
		for _, u := range in.uses {
			if u.name == "sdy.sharding_constraint" && !e.vals[u.results[0]].t.equal(t) {
				apply = false
			}
		}
		if apply {
			in.t = t.clone()
		}
	}
}

// multiUse reports whether a non-scalar operand of n has more than one use.
func (e *sdyEngine) multiUse(n *sdyNode) bool {
	for _, s := range n.operands {
		v := e.vals[s]
		if len(v.shape) > 0 && !v.constant && len(v.uses)+v.returned > 1 {
			return true
		}
	}
	return false
}

// direction returns the op-priority schedule's direction for factor f of n
// at priority prio (the union of this and the earlier steps).
func (e *sdyEngine) direction(prio int, n *sdyNode, f int) sdyDir {
	if n.rule.blocked[f] {
		return dirNone
	}
	d := dirNone
	union := func(x sdyDir) {
		if d == dirNone || d == x {
			d = x
		} else if x != dirNone {
			d = dirBoth
		}
	}
	for q := 0; q <= prio; q++ {
		switch q {
		case 0, 1:
			single := q == 1 || !e.multiUse(n)
			switch {
			case n.passOp && single:
				union(dirBoth)
			case n.dynamic && single:
				union(dirForward)
			}
		case 2:
			switch {
			case n.rule.kinds[f] != factorPassThrough:
			case n.bcast:
				union(dirBackward)
			default:
				union(dirBoth)
			}
		case 3:
			if n.bcast {
				union(dirBackward)
			} else {
				union(dirBoth)
			}
		default:
			union(dirBoth)
		}
	}
	return d
}

// run propagates at one priority until nothing changes; false if it runs
// past the budget.
func (e *sdyEngine) run(prio int) bool {
	e.funcResults()
	stack := make([]*sdyNode, 0, len(e.nodes))
	queued := map[*sdyNode]bool{}
	for i := len(e.nodes) - 1; i >= 0; i-- {
		stack = append(stack, e.nodes[i])
		queued[e.nodes[i]] = true
	}
	push := func(n *sdyNode, from *sdyNode) {
		if n != nil && n != from && !queued[n] {
			stack = append(stack, n)
			queued[n] = true
		}
	}
	for len(stack) > 0 {
		if e.budget--; e.budget < 0 {
			return false
		}
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		delete(queued, n)
		tensors := append(slices.Clone(n.operands), n.results...)
		dir := func(f int) sdyDir { return e.direction(prio, n, f) }
		for _, s := range e.propagate(n.rule, tensors, len(n.operands), dir, n.ewise) {
			v := e.vals[s]
			push(v.def, n)
			// MLIR lists a value's uses newest first.
			for i := len(v.uses) - 1; i >= 0; i-- {
				push(v.uses[i], n)
			}
		}
	}
	e.funcResults()
	return true
}

// funcResults propagates between each returned value and @main's result
// as through an identity op.
func (e *sdyEngine) funcResults() {
	for k, s := range e.rets {
		v := e.vals[s]
		if v.constant {
			continue
		}
		rule := newSdyRule([][]int64{v.shape}, [][]int64{v.shape})
		rule.pointwise(v.shape, func(int) sdyFactorKind { return factorPassThrough })
		fr := &sdyValue{shape: v.shape, t: e.funcRes[k]}
		const resultSlot = -1 << 40
		e.vals[resultSlot] = fr
		e.propagate(rule, []int{s, resultSlot}, 1, func(int) sdyDir { return dirBoth }, false)
		e.funcRes[k] = fr.t
		delete(e.vals, resultSlot)
	}
}

// sdyFactorSharding is one tensor's sharding along one factor.
type sdyFactorSharding struct {
	axes, overflow    []int
	closed, minorMost bool
}

// project maps a tensor's dimension shardings onto the factors of its
// dimensions (ShardingProjection::build), never splitting an axis.
func (e *sdyEngine) project(t sdyTensor, mapping [][]int, sizes []int64) map[int]*sdyFactorSharding {
	out := map[int]*sdyFactorSharding{}
	for d, factors := range mapping {
		var axes []int
		closed := false
		if t.set {
			axes, closed = t.dims[d], t.closed[d]
		}
		ai, overflow := 0, false
		for j, f := range factors {
			fs := &sdyFactorSharding{minorMost: j == len(factors)-1}
			out[f] = fs
			if overflow {
				fs.closed = true
				continue
			}
			fs.closed = closed
			if fs.minorMost {
				fs.axes = slices.Clone(axes[ai:])
				break
			}
			left := sizes[f]
			for ai < len(axes) {
				n := e.axisSize[axes[ai]]
				if n != 1 && (left%n != 0) {
					break
				}
				fs.axes = append(fs.axes, axes[ai])
				left /= n
				ai++
				if left == 1 && ai < len(axes) && e.axisSize[axes[ai]] != 1 {
					break
				}
			}
			if left > 1 && ai < len(axes) {
				overflow = true
				fs.overflow = slices.Clone(axes[ai:])
			}
		}
	}
	return out
}

func (e *sdyEngine) axesSize(axes []int) int64 {
	n := int64(1)
	for _, a := range axes {
		n *= e.axisSize[a]
	}
	return n
}

// isPrefix reports whether a is a prefix of b (equal included).
func isPrefix(a, b []int) bool {
	return len(a) <= len(b) && slices.Equal(a, b[:len(a)])
}

// propagate runs aggressive factor propagation through one op whose
// operands are tensors[:nIn] and results tensors[nIn:], updating the
// values' shardings; it returns the values it changed.
func (e *sdyEngine) propagate(rule *sdyRule, tensors []int, nIn int, dir func(f int) sdyDir, ewise bool) []int {
	any := false
	for _, s := range tensors {
		any = any || e.vals[s].t.set
	}
	if !any {
		return nil // "no common mesh"
	}
	mappings := append(slices.Clone(rule.operands), rule.results...)
	proj := make([]map[int]*sdyFactorSharding, len(tensors))
	for k, s := range tensors {
		proj[k] = e.project(e.vals[s].t, mappings[k], rule.sizes)
	}
	nf := len(rule.sizes)
	// The compatible major axes of each factor, conflicts aside.
	axes := make([][]int, nf)
	empty := true
	for f := 0; f < nf; f++ {
		d := dir(f)
		if d == dirNone {
			continue
		}
		first, second := proj[:nIn], proj[nIn:]
		if d == dirBackward {
			first, second = second, first
		}
		var res []int
		canExpand := true
		step := func(ps []map[int]*sdyFactorSharding) {
			for _, p := range ps {
				fs, ok := p[f]
				if !ok {
					continue
				}
				res, canExpand = compatibleAxes(res, fs.axes, canExpand)
			}
		}
		step(first)
		if d != dirBoth {
			canExpand = false
		}
		step(second)
		axes[f] = res
		empty = empty && len(res) == 0
	}
	if empty {
		return nil
	}
	// Order: larger source tensor, [elementwise] more sharded, earlier
	// source tensor, smaller factor index.
	srcSize := make([]int64, nf)
	srcIndex := make([]int, nf)
	for f := range srcSize {
		srcSize[f], srcIndex[f] = -1, -1
	}
	for k, p := range proj {
		size := int64(1)
		for f := range p {
			size *= rule.sizes[f]
		}
		for f, fs := range p {
			if len(axes[f]) > 0 && isPrefix(axes[f], fs.axes) && size > srcSize[f] {
				srcSize[f], srcIndex[f] = size, k
			}
		}
	}
	order := make([]int, nf)
	for f := range order {
		order[f] = f
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if srcSize[a] != srcSize[b] {
			return srcSize[a] > srcSize[b]
		}
		if ewise {
			if sa, sb := e.axesSize(axes[a]), e.axesSize(axes[b]); sa != sb {
				return sa > sb
			}
		}
		if srcIndex[a] != srcIndex[b] {
			return srcIndex[a] < srcIndex[b]
		}
		return a < b
	})
	updated := make([]bool, len(tensors))
	visit := func(k int) {
		p := proj[k]
		for _, f := range order {
			fs, ok := p[f]
			if !ok || len(axes[f]) == 0 {
				continue
			}
			newAxes := slices.Clone(axes[f])
			prev := int64(1)
			for i, a := range newAxes {
				if !e.fitsFactor(a, fs, prev, rule.sizes[f]) {
					newAxes = newAxes[:i]
					break
				}
				prev *= e.axisSize[a]
			}
			if !(len(fs.axes) < len(newAxes) && isPrefix(fs.axes, newAxes)) {
				continue
			}
		cut:
			for i, a := range newAxes {
				for g, other := range p {
					if g != f && (slices.Contains(other.axes, a) || slices.Contains(other.overflow, a)) {
						newAxes = newAxes[:i]
						break cut
					}
				}
			}
			if len(newAxes) == 0 {
				continue
			}
			if k < nIn && ewise {
				for _, rp := range proj[nIn:] {
					if rf, ok := rp[f]; ok && len(rf.axes) < len(newAxes) && isPrefix(rf.axes, newAxes) {
						newAxes = slices.Clone(rf.axes)
					}
				}
			}
			if len(fs.axes) < len(newAxes) && isPrefix(fs.axes, newAxes) {
				fs.axes = newAxes
				updated[k] = true
			}
		}
	}
	for k := nIn; k < len(tensors); k++ {
		visit(k)
	}
	for k := 0; k < nIn; k++ {
		visit(k)
	}
	var changed []int
	for k, s := range tensors {
		v := e.vals[s]
		if !updated[k] || v.constant {
			continue
		}
		t := e.unproject(proj[k], mappings[k], rule.sizes)
		if (!v.t.set && t.empty()) || (v.t.set && t.equal(v.t)) {
			continue
		}
		v.t = t
		changed = append(changed, s)
	}
	return changed
}

// fitsFactor reports whether axis a can extend factor sharding fs once
// axes of total size prev precede it
// (compatiblePrefixNoConflictsWithinFactor, whole axes only).
func (e *sdyEngine) fitsFactor(a int, fs *sdyFactorSharding, prev, size int64) bool {
	if slices.Contains(fs.axes, a) {
		return true
	}
	if fs.closed || len(fs.overflow) > 0 {
		return false
	}
	if fs.minorMost {
		return true
	}
	n := e.axisSize[a]
	return size%prev == 0 && (size/prev)%n == 0
}

// unproject turns factor shardings back into dimension shardings
// (TensorFactorShardings::createTensorShardingAttr).
func (e *sdyEngine) unproject(p map[int]*sdyFactorSharding, mapping [][]int, sizes []int64) sdyTensor {
	t := sdyTensor{dims: make([][]int, len(mapping)), closed: make([]bool, len(mapping)), set: true}
	for d, factors := range mapping {
		for _, f := range factors {
			fs := p[f]
			if fs == nil {
				break
			}
			t.closed[d] = t.closed[d] || fs.closed
			t.dims[d] = append(t.dims[d], fs.axes...)
			if len(fs.overflow) > 0 {
				t.dims[d] = append(t.dims[d], fs.overflow...)
				break
			}
			if e.axesSize(fs.axes) < sizes[f] {
				break
			}
		}
	}
	return t
}

// compatibleAxes merges one more tensor's axes for a factor into the
// compatible major axes found so far (getCompatibleMajorAxesInternal,
// whole axes only).
func compatibleAxes(old, add []int, canExpand bool) ([]int, bool) {
	i := 0
	for ; i < len(old) && i < len(add); i++ {
		if old[i] != add[i] {
			return slices.Clone(old[:i]), false
		}
	}
	res := slices.Clone(old)
	if canExpand && len(add) > i {
		res = append(res, add[i:]...)
	}
	return res, canExpand
}
