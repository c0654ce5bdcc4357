package stablehlo

// markLastUses records, for each op operand, whether this op is the last
// reader of a value defined in the same region, and for each result whether
// anything reads it. Elementwise ops may then write their result into that
// operand's storage instead of allocating.
// Values from enclosing regions never qualify, nor do block arguments (a
// region can run many times, and its arguments belong to callers), except a
// while body's carries that the loop owns (see ownedCarries).
func markLastUses(r *region) { markLastUsesOwning(r, nil) }

func markLastUsesOwning(r *region, owned map[int]bool) {
	defined := map[int]bool{}
	for s := range owned {
		defined[s] = true
	}
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
		op.resultLive = make([]bool, len(op.results))
		for j, s := range op.results {
			op.resultLive[j] = usedLater[s]
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
		for i, sub := range op.regions {
			if op.Name == "stablehlo.while" && i == 1 {
				markLastUsesOwning(sub, ownedCarries(op))
				continue
			}
			markLastUses(sub)
		}
	}
}

// ownedCarries returns the body arguments of while op that hold storage
// only the loop references, from the second iteration on: the body returns
// in their place a value one of its own ops made, and returns it once.
// evalWhile hands the first iteration an initial value only where the
// while is its last reader (otherwise a copy marked shared), and ops that
// pass a value through mark it shared, so an op may write into an owned
// carry in place (a loop filling a buffer row by row).
func ownedCarries(op *operation) map[int]bool {
	body := op.regions[1]
	made := map[int]bool{}
	for _, inner := range body.ops {
		for _, s := range inner.results {
			made[s] = true
		}
	}
	returned := map[int]int{}
	for _, s := range body.rets {
		returned[s]++
	}
	owned := map[int]bool{}
	for j, s := range body.rets {
		if j < len(body.args) && made[s] && returned[s] == 1 {
			owned[body.args[j]] = true
		}
	}
	return owned
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

// lastReads maps each slot r's ops read (their nested regions included) to
// the index of the last op reading it; len(r.ops) for the slots r returns.
func lastReads(r *region) map[int]int {
	lastRead := map[int]int{}
	for k, op := range r.ops {
		uses := map[int]bool{}
		for _, s := range op.operands {
			uses[s] = true
		}
		for _, sub := range op.regions {
			collectUses(sub, uses)
		}
		for s := range uses {
			lastRead[s] = k
		}
	}
	for _, s := range r.rets {
		lastRead[s] = len(r.ops)
	}
	return lastRead
}
