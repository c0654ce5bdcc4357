package stablehlo

// select_and_scatter, the gradient of max pooling. A select body that is one
// compare runs as a typed comparison (simpleSelect); any other through the
// interpreter, per pair of elements.

func evalSelectAndScatter(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	operand, source, init := in[0], in[1], in[2]
	rt := op.resultTypes[0]
	shape := operand.t.Shape
	rank := len(shape)
	if !rt.Equal(operand.t) || init.size() != 1 || source.t.Elem != rt.Elem || len(source.t.Shape) != rank {
		return nil, invalidf("select_and_scatter operand types do not match")
	}
	window, err := op.ints("window_dimensions")
	if err != nil {
		return nil, err
	}
	wstrides, err := op.optInts("window_strides")
	if err != nil {
		return nil, err
	}
	if wstrides == nil {
		wstrides = make([]int64, rank)
		for i := range wstrides {
			wstrides[i] = 1
		}
	}
	pad, err := op.optInts("padding")
	if err != nil {
		return nil, err
	}
	if pad == nil {
		pad = make([]int64, 2*rank)
	}
	if len(window) != rank || len(wstrides) != rank || len(pad) != 2*rank {
		return nil, invalidf("window attributes do not match rank %d", rank)
	}
	for d := 0; d < rank; d++ {
		if window[d] <= 0 || wstrides[d] <= 0 {
			return nil, invalidf("window sizes and strides must be positive")
		}
	}
	selectBody, scatterBody := op.regions[0], op.regions[1]
	if len(selectBody.args) != 2 || len(selectBody.rets) != 1 {
		return nil, invalidf("select body must take two values and return one")
	}
	scatter, err := newReducer(ev, scatterBody, 1)
	if err != nil {
		return nil, err
	}
	keep := simpleSelect(selectBody, operand)
	out := broadcastScalar(init, rt)
	ones := make([]int64, rank)
	for i := range ones {
		ones[i] = 1
	}
	plan, err := newWindowPlan(shape, source.t.Shape, window, wstrides, ones, ones, pad)
	if err != nil {
		return nil, err
	}
	err = plan.forEach(ev, func(s int, offs []int) error {
		if len(offs) == 0 {
			return nil // a window of padding only selects nothing
		}
		best := offs[0]
		for _, p := range offs[1:] {
			if keep != nil {
				if !keep(best, p) {
					best = p
				}
				continue
			}
			res, err := ev.runRegion(selectBody, []*array{scalarAt(operand, best), scalarAt(operand, p)})
			if err != nil {
				return err
			}
			if res[0].b == nil || res[0].size() != 1 {
				return invalidf("select body must return an i1 scalar")
			}
			if !res[0].b[0] {
				best = p
			}
		}
		return scatter.fold([]*array{out}, best, []*array{source}, s)
	})
	if err != nil {
		return nil, err
	}
	return []*array{out}, nil
}

// simpleSelect recognizes a select body that is one compare of its two
// arguments (max pooling's GE) and returns it as a test of two elements of
// operand, or nil for a body the interpreter must run.
func simpleSelect(r *region, operand *array) func(x, y int) bool {
	op, swapped, ok := soleOp(r)
	if !ok || trimDialect(op.Name) != "compare" {
		return nil
	}
	for _, t := range r.argTypes {
		if t.Elem != operand.t.Elem || len(t.Shape) != 0 {
			return nil
		}
	}
	dir, typ := comparisonArgs(op)
	test, err := comparisonTest(dir)
	if err != nil {
		return nil
	}
	total := typ == "TOTALORDER"
	if swapped {
		return func(x, y int) bool { return test(compareAt(operand, y, operand, x, total)) }
	}
	return func(x, y int) bool { return test(compareAt(operand, x, operand, y, total)) }
}
