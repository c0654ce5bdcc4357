package stablehlo

// Attribute accessors that accept both the generic attribute name and the
// keyword the pretty form uses (e.g. "broadcast_dimensions" and "dims").

func (op *operation) attr(names ...string) *Attr {
	for _, n := range names {
		if a := op.attrs[n]; a != nil {
			return a
		}
	}
	return nil
}

func (op *operation) ints(names ...string) ([]int64, error) {
	a := op.attr(names...)
	if a == nil {
		return nil, invalidf("missing attribute %s", names[0])
	}
	v, ok := a.Ints()
	if !ok {
		return nil, invalidf("attribute %s is not a list of integers", names[0])
	}
	return v, nil
}

func (op *operation) optInts(names ...string) ([]int64, error) {
	if op.attr(names...) == nil {
		return nil, nil
	}
	return op.ints(names...)
}

func (op *operation) int1(names ...string) (int64, error) {
	v, err := op.ints(names...)
	if err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, invalidf("attribute %s must be one integer", names[0])
	}
	return v[0], nil
}

// dialectInts reads a field such as offset_dims of #stablehlo.gather<...>.
func dialectInts(a *Attr, field string) ([]int64, error) {
	if a == nil {
		return nil, invalidf("missing dimension numbers")
	}
	f := a.Dict[field]
	if f == nil {
		return nil, nil
	}
	v, ok := f.Ints()
	if !ok {
		return nil, invalidf("%s is not a list of integers", field)
	}
	return v, nil
}

func checkAxes(axes []int64, rank int, what string) error {
	seen := make([]bool, rank)
	for _, d := range axes {
		if d < 0 || int(d) >= rank || seen[d] {
			return invalidf("%s %v out of range for rank %d", what, axes, rank)
		}
		seen[d] = true
	}
	return nil
}

func containsInt(v []int64, x int64) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}
