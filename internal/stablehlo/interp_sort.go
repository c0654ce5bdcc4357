package stablehlo

import (
	"slices"
	"sort"
)

// sort: every 1-D slice along the dimension is sorted by a permutation that
// the comparator body decides; all operands are permuted alike. A comparator
// of JAX's usual shape decides by keys (interp_sort_keys.go).

func evalSort(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) == 0 || len(op.regions) != 1 || len(op.resultTypes) != len(in) {
		return nil, invalidf("sort needs operands, a comparator and as many results")
	}
	shape := in[0].t.Shape
	for _, a := range in {
		if !shapesEqual(a.t.Shape, shape) {
			return nil, invalidf("sort operands must share a shape")
		}
	}
	rank := len(shape)
	dim := int64(-1)
	if a := op.attr("dimension"); a != nil {
		dim = a.Int
	}
	if dim < 0 {
		dim += int64(rank)
	}
	if rank == 0 {
		return append([]*array(nil), in...), nil
	}
	if dim < 0 || int(dim) >= rank {
		return nil, invalidf("sort dimension out of range")
	}
	body := op.regions[0]
	n := len(in)
	if len(body.args) != 2*n || len(body.rets) != 1 {
		return nil, invalidf("comparator takes %d arguments, want %d", len(body.args), 2*n)
	}
	st := strides(shape)
	length := int(shape[dim])
	stride := st[dim]
	// Every slice starts at a multi-index whose dim coordinate is 0.
	outer := append([]int64(nil), shape...)
	outer[dim] = 1
	starts := mapIndices(outer, st, 0)
	outs := make([]*array, n)
	for i, a := range in {
		outs[i] = a.clone()
	}
	var keys *sortKeys
	plan, byKeys := planKeys(body)
	if byKeys {
		var err error
		if keys, byKeys, err = plan.keys(ev, body, in); err != nil {
			return nil, err
		}
	}
	args := make([]*array, 2*n)
	perm := make([]int, length)
	for _, base := range starts {
		for j := range perm {
			perm[j] = base + j*stride
		}
		if byKeys {
			keys.permutation(perm)
		} else if err := sortByComparator(ev, body, in, args, perm); err != nil {
			return nil, err
		}
		for i, a := range in {
			for j, src := range perm {
				copyElem(outs[i], base+j*stride, a, src)
			}
		}
	}
	return outs, nil
}

// sortByComparator sorts perm (flat indices of one slice) stably by running
// the comparator body on every pair it compares; args is its scratch.
func sortByComparator(ev *evaluator, body *region, in, args []*array, perm []int) error {
	var ferr error
	less := func(x, y int) bool {
		if ferr != nil {
			return false
		}
		for i, a := range in {
			args[2*i] = scalarAt(a, perm[x])
			args[2*i+1] = scalarAt(a, perm[y])
		}
		res, err := ev.runRegion(body, args)
		if err != nil {
			ferr = err
			return false
		}
		if res[0].b == nil || res[0].size() != 1 {
			ferr = invalidf("comparator must return an i1 scalar")
			return false
		}
		return res[0].b[0]
	}
	sort.SliceStable(perm, less)
	return ferr
}

// evalTopK implements chlo.top_k: the k largest entries of the last
// dimension in descending order (NaN above +Inf, ties by lower index), and
// their i32 indices.
func evalTopK(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("top_k takes one operand and returns values and indices")
	}
	a := in[0]
	k, err := op.int1("k")
	if err != nil {
		return nil, err
	}
	rank := len(a.t.Shape)
	if rank == 0 || k < 0 || k > a.t.Shape[rank-1] {
		return nil, invalidf("top_k: k=%d does not fit %s", k, a.t)
	}
	vt, it := op.resultTypes[0], op.resultTypes[1]
	want := append(append([]int64(nil), a.t.Shape[:rank-1]...), k)
	if a.t.Elem.isComplex() {
		return nil, invalidf("top_k is not defined for %s", a.t.Elem)
	}
	if vt.Elem != a.t.Elem || !shapesEqual(vt.Shape, want) || !shapesEqual(it.Shape, want) || !it.Elem.isInt() {
		return nil, invalidf("top_k result types do not match %s and k=%d", a.t, k)
	}
	n := int(a.t.Shape[rank-1])
	rows := a.size() / max(n, 1)
	values, indices := newArray(vt), newArray(it)
	entries := make([]rankedEntry, n)
	for r := 0; r < rows && n > 0 && k > 0; r++ {
		base := r * n
		for j := range entries {
			entries[j] = rankedEntry{orderKey(a, base+j), j}
		}
		top := selectTop(entries, int(k))
		for j, e := range top {
			copyElem(values, r*int(k)+j, a, base+e.idx)
			if indices.i != nil {
				indices.i[r*int(k)+j] = int64(e.idx)
			} else {
				indices.u[r*int(k)+j] = uint64(e.idx)
			}
		}
	}
	return []*array{values, indices}, nil
}

// rankedEntry is an element of a top_k row: its order key and its index.
type rankedEntry struct {
	key int64
	idx int
}

// ranksAbove is top_k's order: larger keys first, and of equal keys the
// lower index.
func ranksAbove(x, y rankedEntry) bool {
	return x.key > y.key || x.key == y.key && x.idx < y.idx
}

// orderKey maps element i of a to an int64 ordered as top_k orders the
// elements: floats by their total order (NaN above +Inf), integers by value.
func orderKey(a *array, i int) int64 {
	switch {
	case a.f32 != nil:
		return totalOrderKey(float64(a.f32[i]))
	case a.f64 != nil:
		return totalOrderKey(a.f64[i])
	case a.u != nil:
		return int64(a.u[i] ^ 1<<63)
	case a.b != nil:
		return boolInt(a.b[i])
	}
	return a.i[i]
}

// selectTop returns the k entries that rank highest, in rank order. It
// reorders entries. For a k that is small against the row it keeps a heap
// of the best k seen (the worst at the root) instead of sorting the row.
func selectTop(entries []rankedEntry, k int) []rankedEntry {
	if k*8 >= len(entries) {
		slices.SortFunc(entries, compareRank)
		return entries[:k]
	}
	heap := entries[:k]
	for i := k/2 - 1; i >= 0; i-- {
		siftWorst(heap, i)
	}
	for _, e := range entries[k:] {
		if ranksAbove(e, heap[0]) {
			heap[0] = e
			siftWorst(heap, 0)
		}
	}
	slices.SortFunc(heap, compareRank)
	return heap
}

func compareRank(x, y rankedEntry) int {
	if ranksAbove(x, y) {
		return -1
	}
	if ranksAbove(y, x) {
		return 1
	}
	return 0
}

// siftWorst restores the heap below i, in which every parent ranks below
// its children.
func siftWorst(h []rankedEntry, i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && ranksAbove(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && ranksAbove(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
