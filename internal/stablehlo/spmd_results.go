package stablehlo

import (
	"slices"
)

// inferResultShardings places each result of an SPMD @main that declares no
// sharding where XLA's sharding propagation places it. For a Shardy module
// (sdy.sharding on @main's arguments) made only of ops whose propagation
// rules are reproduced here — elementwise ops (chlo.square included),
// sharding constraints, transpose, reshape, broadcast_in_dim, reduce,
// dot_general, slice, dynamic_slice, dynamic_update_slice, gather, scatter,
// convolution, select_and_scatter, top_k, concatenate, pad, reverse, sort,
// reduce_window, constants, calls of functions made of these, and while,
// case and optimization_barrier over such regions (Shardy's data-flow
// edges: each result takes what its operand and the regions return) — it
// runs the propagation Shardy runs inside XLA (see shardyResults). Any
// other module (GSPMD's mhlo.sharding, custom calls, ...) falls back
// to the elementwise rule: a result computed elementwise from a sharded
// parameter (or a sharding constraint) of its shape takes that sharding, so
// that `x * 2` of a sharded x stays sharded instead of landing whole on
// every device. A result nothing places stays replicated, which is always
// correct. Modules with collectives or shard_map are placed by
// inferProcessShardings.
func (p *parser) inferResultShardings() {
	m := p.mod
	if m.collectives || m.numPartitions <= 1 {
		return
	}
	if got, ok := p.shardyResults(); ok {
		for k, s := range got {
			if m.resultPlacing[k] == "" {
				m.resultPlacing[k] = s
			}
		}
		return
	}
	p.inferElementwiseResultShardings()
}

// inferElementwiseResultShardings follows elementwise chains only.
func (p *parser) inferElementwiseResultShardings() {
	m := p.mod
	f, r := m.main, m.main.body
	known := map[int]string{} // slot -> sharding, "" once looked at and found none
	for i, s := range r.args {
		if i < len(f.params) {
			known[s] = f.params[i].Sharding
		}
	}
	defs := map[int]*operation{}
	for _, op := range r.ops {
		for _, s := range op.results {
			defs[s] = op
		}
	}
	var find func(s int) string
	find = func(s int) string {
		if sh, ok := known[s]; ok {
			return sh
		}
		known[s] = ""
		op := defs[s]
		sh := ""
		switch {
		case op == nil:
		case op.Name == "stablehlo.custom_call" && op.callee == "Sharding":
			sh = stringAttr(op, "mhlo.sharding")
		case op.Name == "sdy.sharding_constraint":
			if a := op.attrs["sharding"]; a != nil {
				sh, _ = sdyToHloSharding(a.Raw, p.meshes, nil)
			}
		case elementwise(op) && len(op.operandTyps) == len(op.operands):
			shape := op.resultTypes[slices.Index(op.results, s)].Shape
			for k, o := range op.operands {
				if !slices.Equal(op.operandTyps[k].Shape, shape) {
					continue // a broadcast scalar or the like places nothing
				}
				got := find(o)
				if got != "" && sh != "" && got != sh {
					sh = ""
					break
				}
				if got != "" {
					sh = got
				}
			}
		}
		known[s] = sh
		return sh
	}
	for k, s := range r.rets {
		if k < len(f.results) && m.resultPlacing[k] == "" {
			m.resultPlacing[k] = find(s)
		}
	}
}

// elementwise reports whether each element of op's results depends only on
// the elements at the same index of its operands.
func elementwise(op *operation) bool {
	name := trimDialect(op.Name)
	return isElementwise(name) || name == "reduce_precision"
}
