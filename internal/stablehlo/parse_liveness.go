package stablehlo

// markLastUses records, for each op operand, whether this op is the last
// reader of a value defined in the same region. Elementwise ops may then
// write their result into that operand's storage instead of allocating.
// Values from enclosing regions and block arguments never qualify: a region
// can run many times (while, reduce bodies) and arguments belong to callers.
func markLastUses(r *region) {
	defined := map[int]bool{}
	for _, op := range r.ops {
		for _, s := range op.results {
			defined[s] = true
		}
	}
	usedLater := map[int]bool{}
	for _, s := range r.rets {
		usedLater[s] = true
	}
	for k := len(r.ops) - 1; k >= 0; k-- {
		op := r.ops[k]
		inner := map[int]bool{}
		for _, sub := range op.regions {
			collectUses(sub, inner)
		}
		op.lastUse = make([]bool, len(op.operands))
		for j, s := range op.operands {
			op.lastUse[j] = defined[s] && !usedLater[s] && !inner[s]
		}
		for _, s := range op.operands {
			usedLater[s] = true
		}
		for s := range inner {
			usedLater[s] = true
		}
		for _, sub := range op.regions {
			markLastUses(sub)
		}
	}
}

func collectUses(r *region, into map[int]bool) {
	for _, op := range r.ops {
		for _, s := range op.operands {
			into[s] = true
		}
		for _, sub := range op.regions {
			collectUses(sub, into)
		}
	}
	for _, s := range r.rets {
		into[s] = true
	}
}
