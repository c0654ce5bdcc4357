package stablehlo

import (
	"errors"
	"math"
	"slices"
)

// Sorting by keys. Running the comparator region for every comparison costs
// a few microseconds each, some n·log n times. JAX's comparators have one
// shape: compare(L, R) with L computed elementwise from the left argument of
// one operand and R from its right argument (for floats, JAX maps -0 to +0
// and every NaN to one NaN, then compares in total order). So L and R are
// computed once per element, over whole arrays, by the same op kernels, and
// the sort compares those keys: less(x, y) = compare(L[x], R[y]), which is
// the comparator's own answer.

// sortKeys holds the keys of a comparator whose result is one compare.
type sortKeys struct {
	left, right *array // L and R of every element, flat
	less        func(c int) bool
	descending  bool // the comparator is GT
	total       bool // a total order: three-way comparisons are consistent
	oneKey      bool // total, and left and right are the same keys
}

// sortByKeys turns the keyed sort off, for tests comparing it with the
// comparator's own order.
var sortByKeys = true

// keyPlan is what a comparator of the keyed shape computes: compare(L, R),
// L from argument 2k and R from argument 2k+1, by the ops of left and right.
type keyPlan struct {
	final       *operation
	left, right map[*operation]bool
	operand     int
}

// planKeys returns the key plan of body, or false when body does not have
// the shape described above.
func planKeys(body *region) (keyPlan, bool) {
	if !sortByKeys || len(body.rets) != 1 {
		return keyPlan{}, false
	}
	defs := make(map[int]*operation, len(body.ops))
	for _, op := range body.ops {
		for _, s := range op.results {
			defs[s] = op
		}
	}
	final := defs[body.rets[0]]
	if final == nil || final.Name != "stablehlo.compare" || len(final.operands) != 2 ||
		len(final.operandTyps) != 2 || final.operandTyps[0].Elem.isComplex() { // complex values have no order
		return keyPlan{}, false
	}
	if dir, _ := comparisonArgs(final); dir != "LT" && dir != "GT" {
		return keyPlan{}, false
	}
	argIndex := make(map[int]int, len(body.args))
	for i, s := range body.args {
		argIndex[s] = i
	}
	left, lArg, ok := keyChain(defs, argIndex, final.operands[0])
	if !ok || lArg%2 != 0 {
		return keyPlan{}, false
	}
	right, rArg, ok := keyChain(defs, argIndex, final.operands[1])
	if !ok || rArg != lArg+1 {
		return keyPlan{}, false
	}
	return keyPlan{final: final, left: left, right: right, operand: lArg / 2}, true
}

// keys computes the plan's keys over the operands in; ok is false when
// they cannot be (the sort then runs the comparator).
func (p keyPlan) keys(ev *evaluator, body *region, in []*array) (k *sortKeys, ok bool, err error) {
	dir, typ := comparisonArgs(p.final)
	test, err := comparisonTest(dir)
	if err != nil {
		return nil, false, err
	}
	operand := in[p.operand]
	k = &sortKeys{less: test, descending: dir == "GT"}
	if k.left, err = evalKeyChain(ev, body, p.left, operand, p.final.operands[0]); err == nil {
		k.right, err = evalKeyChain(ev, body, p.right, operand, p.final.operands[1])
	}
	if errors.Is(err, errNotKeyed) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	k.total = typ == "TOTALORDER" || !k.left.t.Elem.isFloat()
	k.oneKey = k.total && sameKeys(k.left, k.right) // once: every slice's sort asks
	return k, true, nil
}

// keyChain collects the ops value depends on, in body order, and the one
// comparator argument they read; ok is false when one is not elementwise or
// they read other than exactly one argument. Values defined outside the
// comparator (constants an exported module hoists out of it) are leaves too.
func keyChain(defs map[int]*operation, argIndex map[int]int, value int) (chain map[*operation]bool, arg int, ok bool) {
	chain = map[*operation]bool{}
	arg = -1
	var visit func(s int) bool
	visit = func(s int) bool {
		if i, isArg := argIndex[s]; isArg {
			if arg >= 0 && arg != i {
				return false
			}
			arg = i
			return true
		}
		op := defs[s]
		if op == nil {
			return true // from outside the comparator: evalKeyChain wants a scalar
		}
		if chain[op] {
			return true
		}
		// A key may be computed with constants and elementwise ops, which
		// apply to whole arrays as they do to scalars.
		name := trimDialect(op.Name)
		if name != "constant" && !isElementwise(name) || len(op.regions) > 0 || len(op.results) != 1 {
			return false
		}
		chain[op] = true
		for _, o := range op.operands {
			if !visit(o) {
				return false
			}
		}
		return true
	}
	if !visit(value) || arg < 0 {
		return nil, -1, false
	}
	return chain, arg, true
}

// errNotKeyed says a comparator reads a value from outside it that is not a
// scalar: the sort runs the comparator instead.
var errNotKeyed = invalidf("the comparator reads a non-scalar value from outside it")

// evalKeyChain runs the chain's ops, in body order, on every element of
// operand at once (constants and scalars from outside the comparator
// repeated to its length) and returns value's array.
func evalKeyChain(ev *evaluator, body *region, chain map[*operation]bool, operand *array, value int) (*array, error) {
	n := int64(operand.size())
	flatType := func(t TensorType) TensorType { return TensorType{Elem: t.Elem, Shape: []int64{n}} }
	vals := map[int]*array{}
	for _, s := range body.args {
		vals[s] = operand.withType(flatType(operand.t)) // shared: never written
	}
	for _, op := range body.ops {
		if !chain[op] {
			continue
		}
		wide := *op
		wide.lastUse = nil // no operand is reused in place: the operand is the caller's
		wide.resultTypes = []TensorType{flatType(op.resultTypes[0])}
		if trimDialect(op.Name) == "constant" {
			c, err := op.eval(ev, op, nil)
			if err != nil {
				return nil, opError(op, err)
			}
			vals[op.results[0]] = broadcastScalar(c[0], wide.resultTypes[0])
			continue
		}
		in := make([]*array, len(op.operands))
		for i, s := range op.operands {
			v, ok := vals[s]
			if !ok {
				outer := ev.frame[s]
				if outer == nil || outer.size() != 1 || len(outer.t.Shape) != 0 {
					return nil, errNotKeyed
				}
				v = broadcastScalar(outer, flatType(outer.t))
				vals[s] = v
			}
			in[i] = v
		}
		out, err := op.eval(ev, &wide, in)
		if err != nil {
			return nil, opError(op, err)
		}
		vals[op.results[0]] = out[0]
	}
	return vals[value], nil
}

// permutation sorts perm (flat indices of one slice) by the keys, stably.
func (k *sortKeys) permutation(perm []int) {
	if k.oneKey {
		// One key, totally ordered: a three-way comparison with the
		// original position breaking ties is a stable sort, by pdqsort.
		slices.SortFunc(perm, func(x, y int) int {
			c := compareAt(k.left, x, k.left, y, true)
			if k.descending {
				c = -c
			}
			if c != 0 {
				return c
			}
			return x - y
		})
		return
	}
	slices.SortStableFunc(perm, func(x, y int) int {
		if k.less(compareAt(k.left, x, k.right, y, k.total)) {
			return -1
		}
		if k.less(compareAt(k.left, y, k.right, x, k.total)) {
			return 1
		}
		return 0
	})
}

// sameKeys reports whether a and b hold the same elements, bit for bit.
func sameKeys(a, b *array) bool {
	if !a.t.Equal(b.t) {
		return false
	}
	switch a.t.Elem.class() {
	case classF32:
		for i, x := range a.f32 {
			if math.Float32bits(x) != math.Float32bits(b.f32[i]) {
				return false
			}
		}
		return true
	case classF64:
		for i, x := range a.f64 {
			if math.Float64bits(x) != math.Float64bits(b.f64[i]) {
				return false
			}
		}
		return true
	case classInt:
		return slices.Equal(a.i, b.i)
	case classUint:
		return slices.Equal(a.u, b.u)
	case classBool:
		return slices.Equal(a.b, b.b)
	}
	return false
}
