package stablehlo

import "strings"

// ProcessShardings returns the HLO shardings by which RunProcess places
// @main's parameters and results ("" is replicated): the declared ones,
// else, for a value that only enters manual regions or that one returns,
// the sharding the region gives it, which is what XLA's sharding
// propagation settles on. Value.Sharding keeps the declared ones only.
func (m *Module) ProcessShardings() (params, results []string) {
	return m.paramPlacing, m.resultPlacing
}

// placeProcessValues lays out @main's parameters and results by their
// ProcessShardings over the partitions, once for every run.
func (m *Module) placeProcessValues() {
	f := m.main
	if f == nil {
		return
	}
	place := func(shardings []string, vals []Value) []*placement {
		pls := make([]*placement, len(vals))
		for i, v := range vals {
			pl, err := placementFor(shardings[i], v.Type, m.numPartitions)
			if err != nil && m.placingErr == nil {
				m.placingErr = err
			}
			pls[i] = pl
		}
		return pls
	}
	m.paramPls = place(m.paramPlacing, f.params)
	m.resultPls = place(m.resultPlacing, f.results)
}

// inferProcessShardings sets ProcessShardings once the ops are resolved.
func (m *Module) inferProcessShardings() {
	f := m.main
	r := f.body
	m.paramPlacing = make([]string, len(f.params))
	m.resultPlacing = make([]string, len(f.results))
	for i, v := range f.params {
		m.paramPlacing[i] = v.Sharding
	}
	for k, v := range f.results {
		m.resultPlacing[k] = v.Sharding
	}
	if !m.collectives {
		return
	}
	type use struct {
		op      *operation
		operand int
	}
	uses := map[int][]use{}
	defs := map[int]*operation{}
	global := map[int]bool{} // read other than as an operand of a top-level op
	for _, op := range r.ops {
		for k, s := range op.operands {
			uses[s] = append(uses[s], use{op, k})
		}
		for _, sub := range op.regions {
			collectUses(sub, global)
		}
		for _, s := range op.results {
			defs[s] = op
		}
	}
	for _, s := range r.rets {
		global[s] = true
	}
	for i, s := range r.args {
		if i >= len(f.params) || m.paramPlacing[i] != "" || global[s] {
			continue
		}
		agreed := ""
		for _, u := range uses[s] {
			sh := ""
			switch op := u.op; {
			case op.Name == "sdy.manual_computation" && op.manual != nil && op.manual.err == nil:
				sh = op.manual.inText[u.operand]
			case op.Name == "stablehlo.custom_call" && op.callee == "Sharding" && !strings.Contains(stringAttr(op, "mhlo.sharding"), "manual"):
				sh = stringAttr(op, "mhlo.sharding")
			}
			if sh == "" || (agreed != "" && sh != agreed) {
				agreed = ""
				break
			}
			agreed = sh
		}
		m.paramPlacing[i] = agreed
	}
	for k, s := range r.rets {
		op := defs[s]
		if k >= len(f.results) || m.resultPlacing[k] != "" || op == nil || op.manual == nil || op.manual.err != nil {
			continue
		}
		switch {
		case op.Name == "sdy.manual_computation":
			for j, res := range op.results {
				if res == s {
					m.resultPlacing[k] = op.manual.outText[j]
				}
			}
		case isShardToFull(op):
			m.resultPlacing[k] = stringAttr(op, "mhlo.sharding")
		}
	}
}
