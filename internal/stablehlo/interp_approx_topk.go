package stablehlo

// evalApproxTopK implements the ApproxTopK custom call of jax.lax.approx_max_k
// and approx_min_k as XLA's CPU and GPU backends do: exactly, by a stable sort
// of each line along reduction_dim with the called comparator, keeping the
// first top_k entries of every operand. Operands are N arrays and N initial
// values (unused here); the comparator must compare the first operands (as
// JAX's does), and aggregate_to_topk must be true (JAX's default).
func evalApproxTopK(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	n := len(in) / 2
	if n == 0 || len(in) != 2*n || len(op.resultTypes) != n {
		return nil, invalidf("ApproxTopK takes N operands and N initial values and returns N results")
	}
	k, dim := backendOption(op, "top_k"), backendOption(op, "reduction_dim")
	if k == nil || dim == nil || k.Kind != AttrInt || dim.Kind != AttrInt {
		return nil, invalidf("ApproxTopK needs top_k and reduction_dim")
	}
	if agg := backendOption(op, "aggregate_to_topk"); agg != nil && agg.Kind == AttrBool && !agg.Bool {
		return nil, unimplementedf("ApproxTopK without aggregate_to_topk is not supported by the interpreter")
	}
	shape := in[0].t.Shape
	rank := len(shape)
	if dim.Int < 0 || int(dim.Int) >= rank || k.Int < 0 || k.Int > shape[dim.Int] {
		return nil, invalidf("ApproxTopK: top_k=%d along dimension %d does not fit %s", k.Int, dim.Int, in[0].t)
	}
	want := append([]int64(nil), shape...)
	want[dim.Int] = k.Int
	for i := range n {
		if !shapesEqual(in[i].t.Shape, shape) || op.resultTypes[i].Elem != in[i].t.Elem || !shapesEqual(op.resultTypes[i].Shape, want) {
			return nil, invalidf("ApproxTopK result %d is %s, want %v of %s", i, op.resultTypes[i], want, in[i].t.Elem)
		}
	}
	calls := op.attrs["called_computations"]
	if calls == nil || calls.Kind != AttrList || len(calls.List) != 1 {
		return nil, invalidf("ApproxTopK needs one called comparator")
	}
	cmp := ev.mod.Func(calls.List[0].Str)
	if cmp == nil {
		return nil, invalidf("ApproxTopK comparator @%s is not defined", calls.List[0].Str)
	}
	plan, ok := planKeys(cmp.body)
	var keys *sortKeys
	if ok {
		keys, ok, _ = plan.keys(ev, cmp.body, in[:n])
	}
	if !ok {
		return nil, unimplementedf("ApproxTopK with comparator @%s: only a comparison of the operands' elements is supported", cmp.Name)
	}
	st, ost := strides(shape), strides(want)
	line := int(shape[dim.Int])
	outer := append([]int64(nil), shape...)
	outer[dim.Int] = 1
	out := make([]*array, n)
	for i := range out {
		out[i] = newArray(op.resultTypes[i])
	}
	perm := make([]int, line)
	dests := mapIndices(outer, ost, 0)
	for li, base := range mapIndices(outer, st, 0) {
		for j := range perm {
			perm[j] = base + j*st[dim.Int]
		}
		keys.permutation(perm)
		at := dests[li]
		for i := range out {
			for j := range int(k.Int) {
				copyElem(out[i], at+j*ost[dim.Int], in[i], perm[j])
			}
		}
	}
	return out, nil
}
