package stablehlo

import "strings"

// Inlining. JAX puts pieces of its lowerings in private functions
// (jnp.where's @_where, remainder, clip, lax.scan's
// @dynamic_update_index_in_dim, the polynomials of lgamma and erf, and a
// scan's whole body in @closed_call). A call cuts elementwise fusion, costs
// a frame of its own each time it runs, and keeps a loop body from writing
// its carry in place: a callee's parameters belong to its caller. Calls to
// private functions of plain ops, small or called from one place only, are
// replaced by copies of the callee's ops (their regions included),
// renumbered into the caller's frame; the functions stay for other callers.

// maxInlinedOps bounds the ops of a function (its regions' included) whose
// calls are inlined where it is called from more than one place, so that
// inlining grows a program by at most that much per call.
const maxInlinedOps = 64

// inlineCalls inlines the calls of every function's body (Parse, after the
// sharding inference, which reads calls as they were written). Each
// function is done once, its callees before it, so the work is linear in
// the program; a call back into a function in progress (recursion, which
// only fails when run) stays a call.
func (m *Module) inlineCalls() {
	sites := m.callSites()
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
			if op.Name != "func.call" || callee == nil || state[callee] != 2 || !inlinable(op, callee, sites[callee]) {
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

// callSites counts the calls of each function, in regions too.
func (m *Module) callSites() map[*Func]int {
	sites := map[*Func]int{}
	for _, f := range m.funcs {
		if f.body != nil {
			eachOp(f.body, func(op *operation) {
				if callee := m.funcs[op.callee]; callee != nil {
					sites[callee]++
				}
			})
		}
	}
	return sites
}

// inlinable reports whether call may be replaced by callee's ops: a private
// function whose signature the call matches, of plain ops (no collectives,
// custom calls, calls or shardings, which the SPMD machinery reads where
// they are written; in its regions neither), returning values its
// top-level ops make, each once, and small or called from one place only
// (sites). A threefry2x32 function stays a call: it may run natively
// (threefry_call.go).
func inlinable(call *operation, callee *Func, sites int) bool {
	body := callee.body
	if callee.Public || len(callee.params) != len(call.operands) ||
		len(callee.results) != len(call.results) || len(body.args) != len(call.operands) || len(body.rets) != len(call.results) ||
		isThreefryName(callee.Name) && threefrySignature(callee) {
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
	ops, plain := plainOps(body)
	if !plain || ops > maxInlinedOps && sites > 1 {
		return false
	}
	for _, fresh := range freshReturns(body, nil) {
		if !fresh {
			return false
		}
	}
	return true
}

// plainOps counts the ops of r, its regions' included, and reports whether
// all of them may be inlined.
func plainOps(r *region) (int, bool) {
	n := 0
	for _, op := range r.ops {
		if op.collective != nil || op.manual != nil || isCollective(op) || op.callee != "" ||
			op.Name == "stablehlo.custom_call" || strings.HasPrefix(op.Name, "sdy.") || hasShardingAttr(op.attrs) {
			return n, false
		}
		n++
		for _, sub := range op.regions {
			k, plain := plainOps(sub)
			if n += k; !plain {
				return n, false
			}
		}
	}
	return n, true
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

// inlineCall returns copies of callee's ops (and of their regions) that
// read call's operands and define call's results, their other values in new
// slots of f's frame.
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
	var copyOps func(ops []*operation) []*operation
	copyOps = func(ops []*operation) []*operation {
		out := make([]*operation, len(ops))
		for k, op := range ops {
			c := *op
			c.operands, c.results = renumber(op.operands), renumber(op.results)
			c.lastUse, c.resultLive = nil, nil
			c.regions = nil
			for _, r := range op.regions {
				c.regions = append(c.regions, &region{args: renumber(r.args), argTypes: r.argTypes, ops: copyOps(r.ops), rets: renumber(r.rets)})
			}
			out[k] = &c
		}
		return out
	}
	return copyOps(callee.body.ops)
}
