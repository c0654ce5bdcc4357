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
	w, err := readWindow(op, rank, false)
	if err != nil {
		return nil, err
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
	plan, err := newWindowPlan(shape, source.t.Shape, w.size, w.strides, w.baseDil, w.winDil, w.pad)
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
