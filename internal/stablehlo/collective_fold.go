package stablehlo

// folder applies a collective's reduction computation (a two-argument
// region) to arriving pieces: one binary op on its arguments runs as a
// typed loop, anything else per element through the interpreter.
type folder struct {
	kind   binaryKind
	simple bool
	red    *reducer
}

func newFolder(ev *evaluator, body *region, e ElemType) (*folder, error) {
	if len(body.args) != 2 || len(body.rets) != 1 {
		return nil, invalidf("the reduction computation takes %d arguments and returns %d values, want 2 and 1", len(body.args), len(body.rets))
	}
	for _, t := range body.argTypes {
		if t.Elem != e || len(t.Shape) != 0 {
			return nil, unimplementedf("a reduction computation over %s for %s operands is not supported", t, e)
		}
	}
	red, err := newReducer(ev, body, 1)
	if err != nil {
		return nil, err
	}
	kind, simple := simpleBody(body)
	return &folder{kind: kind, simple: simple, red: red}, nil
}

// reduceInto receives from every other member of group its piece matching
// own (same type and position) and stores the reduction of all pieces, in
// group order, in acc (of own's size).
func (f *folder) reduceInto(x *exchange, group []int, me int, own, acc *array) error {
	size := own.size() * own.t.Elem.ByteSize()
	for j, peer := range group {
		if j == me {
			if j == 0 {
				copyRange(acc, 0, own)
			} else if err := f.fold(acc, 0, own); err != nil {
				return err
			}
			continue
		}
		w := copyInto(acc, 0)
		if j > 0 {
			w = &elementWriter{elem: acc.t.Elem, limit: acc.size(), put: func(at int, run *array) error { return f.fold(acc, at, run) }}
		}
		if err := x.recv(peer, size, w); err != nil {
			return err
		}
	}
	return nil
}

// fold sets acc[at+k] = computation(acc[at+k], run[k]) for every k.
func (f *folder) fold(acc *array, at int, run *array) error {
	n := run.size()
	if !f.simple {
		accs, runs := []*array{acc}, []*array{run}
		for k := 0; k < n; k++ {
			if err := f.red.fold(accs, at+k, runs, k); err != nil {
				return err
			}
		}
		return nil
	}
	switch acc.t.Elem.class() {
	case classF32:
		foldFloats(f.kind, acc.f32[at:at+n], run.f32)
	case classF64:
		foldFloats(f.kind, acc.f64[at:at+n], run.f64)
	case classInt:
		foldInts(f.kind, acc.i[at:at+n], run.i)
	case classUint:
		foldInts(f.kind, acc.u[at:at+n], run.u)
	default:
		for k := 0; k < n; k++ {
			combine(f.kind, acc, at+k, run, k)
		}
	}
	flat(acc, at, at+n).normalize()
	return nil
}

func foldFloats[T float32 | float64](kind binaryKind, acc, x []T) {
	x = x[:len(acc)]
	switch kind {
	case binAdd:
		for i := range acc {
			acc[i] += x[i]
		}
	case binMul:
		for i := range acc {
			acc[i] *= x[i]
		}
	default:
		for i := range acc {
			acc[i] = combineFloat(kind, acc[i], x[i])
		}
	}
}

func foldInts[T int64 | uint64](kind binaryKind, acc, x []T) {
	x = x[:len(acc)]
	if kind == binAdd {
		for i := range acc {
			acc[i] += x[i]
		}
		return
	}
	for i := range acc {
		acc[i] = combineInt(kind, acc[i], x[i])
	}
}
