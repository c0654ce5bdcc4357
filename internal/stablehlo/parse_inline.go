package stablehlo

import "strings"

// Inlining. JAX puts small pieces of its lowerings in private functions
// (jnp.where's @_where, remainder, clip, lax.scan's
// @dynamic_update_index_in_dim, the polynomials of lgamma and erf). A call
// cuts elementwise fusion, and it keeps a loop body from writing its carry
// in place: a callee's parameters belong to its caller. Calls to small
// private functions of plain ops are replaced by copies of the callee's ops,
// renumbered into the caller's frame; the functions stay for other callers.

// maxInlinedOps bounds the ops of a function whose calls are inlined.
const maxInlinedOps = 64

// inlineCalls inlines the calls of every function's body (Parse, after the
// sharding inference, which reads calls as they were written). Each
// function is done once, its callees before it, so the work is linear in
// the program; a call back into a function in progress (recursion, which
// only fails when run) stays a call.
func (m *Module) inlineCalls() {
	state := map[*Func]int{} // 0 new, 1 in progress, 2 done
	var fn func(f *Func)
	var inRegion func(f *Func, r *region)
	fn = func(f *Func) {
		if state[f] != 0 || f.body == nil {
			return
		}
		state[f] = 1
		inRegion(f, f.body)
		state[f] = 2
	}
	inRegion = func(f *Func, r *region) {
		var out []*operation
		for _, op := range r.ops {
			for _, sub := range op.regions {
				inRegion(f, sub)
			}
			callee := m.funcs[op.callee]
			if op.Name == "func.call" && callee != nil {
				fn(callee)
			}
			if op.Name != "func.call" || callee == nil || state[callee] != 2 || !inlinable(op, callee) {
				out = append(out, op)
				continue
			}
			out = append(out, inlineCall(f, op, callee)...)
		}
		r.ops = out
	}
	for _, name := range sortedFuncNames(m.funcs) {
		fn(m.funcs[name])
	}
}

// inlinable reports whether call may be replaced by callee's ops: a private
// function whose signature the call matches, of at most maxInlinedOps plain
// ops (no regions, collectives, custom calls or shardings, which the SPMD
// machinery reads where they are written), returning values its ops make,
// each once.
func inlinable(call *operation, callee *Func) bool {
	body := callee.body
	if callee.Public || len(body.ops) > maxInlinedOps || len(callee.params) != len(call.operands) ||
		len(callee.results) != len(call.results) || len(body.args) != len(call.operands) || len(body.rets) != len(call.results) {
		return false
	}
	for i, p := range callee.params {
		if i >= len(call.operandTyps) || !p.Type.Equal(call.operandTyps[i]) || !plainValue(p) {
			return false
		}
	}
	for i, r := range callee.results {
		if i >= len(call.resultTypes) || !r.Type.Equal(call.resultTypes[i]) || !plainValue(r) {
			return false
		}
	}
	made := map[int]bool{}
	for _, op := range body.ops {
		if len(op.regions) > 0 || op.collective != nil || op.manual != nil || isCollective(op) || op.callee != "" ||
			op.Name == "stablehlo.custom_call" || strings.HasPrefix(op.Name, "sdy.") || hasShardingAttr(op.attrs) {
			return false
		}
		for _, s := range op.results {
			made[s] = true
		}
	}
	returned := map[int]bool{}
	for _, s := range body.rets {
		if !made[s] || returned[s] {
			return false
		}
		returned[s] = true
	}
	return true
}

func plainValue(v Value) bool { return v.Sharding == "" && !hasShardingAttr(v.Attrs) }

func hasShardingAttr(attrs map[string]*Attr) bool {
	for k := range attrs {
		if strings.Contains(k, "sharding") {
			return true
		}
	}
	return false
}

// inlineCall returns copies of callee's ops that read call's operands and
// define call's results, their other values in new slots of f's frame.
func inlineCall(f *Func, call *operation, callee *Func) []*operation {
	base := f.numSlots
	f.numSlots += callee.numSlots
	slot := map[int]int{}
	for i, s := range callee.body.args {
		slot[s] = call.operands[i]
	}
	for i, s := range callee.body.rets {
		slot[s] = call.results[i]
	}
	renumber := func(slots []int) []int {
		out := make([]int, len(slots))
		for i, s := range slots {
			if t, ok := slot[s]; ok {
				out[i] = t
			} else {
				out[i] = base + s
			}
		}
		return out
	}
	ops := make([]*operation, len(callee.body.ops))
	for k, op := range callee.body.ops {
		c := *op
		c.operands, c.results = renumber(op.operands), renumber(op.results)
		c.lastUse = nil
		ops[k] = &c
	}
	return ops
}
