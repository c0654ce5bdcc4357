package stablehlo

// markLastUses records, for each op operand, whether this op is the last
// reader of a value defined in the same region, and for each result whether
// anything reads it. Elementwise ops may then write their result into that
// operand's storage instead of allocating.
// Values from enclosing regions never qualify, nor do block arguments (a
// region can run many times, and its arguments belong to callers), except a
// while body's carries that the loop owns (see ownedCarries) and the values
// a case or if branch reads that nothing reads after the op (see
// isBranching).
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
		var branchOwned map[int]bool // nil: the regions own nothing from here
		if isBranching(op) {
			branchOwned = map[int]bool{}
			for s := range inner {
				if defined[s] && !usedLater[s] && !containsIndex(op.operands, s) {
					branchOwned[s] = true
				}
			}
			op.branchMade = branchesMake(op, branchOwned)
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
			markLastUsesOwning(sub, branchOwned)
		}
	}
}

// isBranching says whether op runs at most one of its regions, once: its
// branches may then take over the values they read that nothing reads
// after op (a cond in a loop updating the loop's buffer).
func isBranching(op *operation) bool {
	return op.Name == "stablehlo.case" || op.Name == "stablehlo.if"
}

// branchesMake reports, per result of a case or if, whether every branch
// returns there a value its own ops made, or one it owns (nothing reads it
// after op), and returns it once: such a result is held by nothing else (a
// value a branch passes through from outside may be).
func branchesMake(op *operation, owned map[int]bool) []bool {
	made := make([]bool, len(op.results))
	for k := range made {
		made[k] = true
	}
	for _, r := range op.regions {
		fresh := freshReturns(r, owned)
		for k := range made {
			made[k] = made[k] && k < len(fresh) && fresh[k]
		}
	}
	return made
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
	owned := map[int]bool{}
	for j, fresh := range freshReturns(body, nil) {
		if j < len(body.args) && fresh {
			owned[body.args[j]] = true
		}
	}
	return owned
}

// freshReturns reports, per value r returns, whether one of r's own ops
// made it, or it is one of owned, and r returns it once.
func freshReturns(r *region, owned map[int]bool) []bool {
	made := map[int]bool{}
	for s := range owned {
		made[s] = true
	}
	for _, op := range r.ops {
		for _, s := range op.results {
			made[s] = true
		}
	}
	returned := map[int]int{}
	for _, s := range r.rets {
		returned[s]++
	}
	fresh := make([]bool, len(r.rets))
	for k, s := range r.rets {
		fresh[k] = made[s] && returned[s] == 1
	}
	return fresh
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
