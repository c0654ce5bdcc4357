package stablehlo

// TempBytes estimates the most bytes of values one run of the module's
// @main holds at once besides its arguments and results: each op's results
// are made before its operands are released, each value is released after
// its last reader, and an op with regions (a loop, a call, a branch) adds
// the most its regions hold at once while it runs. The values are those of
// the program as written: the global shapes where the interpreter runs a
// sharded program whole, the per-partition shapes inside manual regions.
// Constants and the steps inside a fused elementwise op are not counted.
func (m *Module) TempBytes() int64 {
	return m.regionPeak(m.main.body, map[string]bool{})
}

// regionPeak is the most bytes of r's own values live at once while r
// runs. r's arguments belong to its caller and the values it returns become
// the caller's, so neither counts here.
func (m *Module) regionPeak(r *region, calling map[string]bool) int64 {
	lastRead := lastReads(r)       // len(r.ops) for the values r returns
	releaseAt := map[int][]int64{} // op index -> sizes of the values released after it
	var live, peak int64
	for k, op := range r.ops {
		var made int64
		if !isConstantOp(op) {
			for i, s := range op.results {
				last, read := lastRead[s]
				if last == len(r.ops) {
					continue
				}
				if !read {
					last = k
				}
				b := op.resultTypes[i].byteSize()
				made += b
				releaseAt[last] = append(releaseAt[last], b)
			}
		}
		peak = max(peak, live+made+m.innerPeak(op, calling))
		live += made
		for _, b := range releaseAt[k] {
			live -= b
		}
	}
	return peak
}

// innerPeak is the most op's regions, or the function it calls, hold at
// once while op runs.
func (m *Module) innerPeak(op *operation, calling map[string]bool) int64 {
	var most int64
	if f := m.funcs[op.callee]; f != nil && !calling[op.callee] {
		calling[op.callee] = true
		most = m.regionPeak(f.body, calling)
		delete(calling, op.callee)
	}
	for _, r := range op.regions {
		most = max(most, m.regionPeak(r, calling))
	}
	return most
}
