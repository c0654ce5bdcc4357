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
// group order, in acc (of own's size). When own is one of the first two
// pieces, the first step combines own and the other straight into acc, so
// own is not first copied there. When reduced is not nil it is called as
// the leading elements of acc take their final values, with how many do,
// so that the caller can pass them on while they are still in the cache.
func (f *folder) reduceInto(x *exchange, group []int, me int, own, acc *array, reduced func(upto int)) error {
	if len(group) == 1 {
		copyRange(acc, 0, own)
		return nil
	}
	size := own.size() * own.t.Elem.ByteSize()
	// The last step is the last peer's piece unless this process is the
	// last member and folds its own piece last (see below).
	last := len(group) - 1
	if last == me && me > 1 {
		last = -1
	} else if last == me {
		last--
	}
	for j, peer := range group {
		if j == me {
			if j > 1 {
				if err := f.fold(acc, 0, own); err != nil {
					return err
				}
			}
			continue
		}
		w := copyInto(acc, 0)
		switch {
		case j == 0 && me == 1:
			w.put = func(at int, run *array) error { return f.pair(acc, at, run, flat(own, at, at+run.size())) }
		case j == 1 && me == 0:
			w.put = func(at int, run *array) error { return f.pair(acc, at, flat(own, at, at+run.size()), run) }
		case j > 0:
			w.put = func(at int, run *array) error { return f.fold(acc, at, run) }
		}
		if j == last && reduced != nil {
			w.put = reportingRuns(w.put, reduced)
		}
		if err := x.recv(peer, size, w); err != nil {
			return err
		}
	}
	if reduced != nil {
		reduced(acc.size())
	}
	return nil
}

// reportingRuns wraps put so that it takes runs of at most gatherPiece
// bytes and reports after each how far it got.
func reportingRuns(put func(at int, run *array) error, reduced func(upto int)) func(at int, run *array) error {
	return func(at int, run *array) error {
		step := max(1, gatherPiece/run.t.Elem.ByteSize())
		for lo := 0; lo < run.size(); lo += step {
			hi := min(lo+step, run.size())
			if err := put(at+lo, flat(run, lo, hi)); err != nil {
				return err
			}
			reduced(at + hi)
		}
		return nil
	}
}

// pairsElementwise says whether pair combines e elements one index at a
// time in a typed loop (rather than copying a to dst first), so that a may
// be dst itself.
func (f *folder) pairsElementwise(e ElemType) bool {
	c := e.class()
	return f.simple && (c == classF32 || c == classF64 || c == classInt || c == classUint)
}

// pair sets dst[at+k] = computation(a[k], b[k]) for every k, a and b of
// the same size and not overlapping dst (see pairsElementwise).
func (f *folder) pair(dst *array, at int, a, b *array) error {
	n := a.size()
	switch c := dst.t.Elem.class(); {
	case !f.pairsElementwise(dst.t.Elem):
		copyRange(dst, at, a)
		return f.fold(dst, at, b)
	case c == classF32:
		combineFloats(f.kind, dst.f32[at:at+n], a.f32, b.f32)
	case c == classF64:
		combineFloats(f.kind, dst.f64[at:at+n], a.f64, b.f64)
	case c == classInt:
		combineInts(f.kind, dst.i[at:at+n], a.i, b.i)
	default:
		combineInts(f.kind, dst.u[at:at+n], a.u, b.u)
	}
	normalizeRange(dst, at, at+n)
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
	if combineRun(f.kind, acc, at, run, 0, n) {
		return nil
	}
	for k := 0; k < n; k++ {
		combine(f.kind, acc, at+k, run, k)
	}
	normalizeRange(acc, at, at+n)
	return nil
}

// combineRun sets acc[at+k] = kind(acc[at+k], x[xi+k]) for k < n in one
// typed loop and rounds them as acc's type requires. It does nothing and
// returns false for the element classes without one (complex, bool).
func combineRun(kind binaryKind, acc *array, at int, x *array, xi, n int) bool {
	switch acc.t.Elem.class() {
	case classF32:
		combineFloats(kind, acc.f32[at:at+n], acc.f32[at:at+n], x.f32[xi:xi+n])
	case classF64:
		combineFloats(kind, acc.f64[at:at+n], acc.f64[at:at+n], x.f64[xi:xi+n])
	case classInt:
		combineInts(kind, acc.i[at:at+n], acc.i[at:at+n], x.i[xi:xi+n])
	case classUint:
		combineInts(kind, acc.u[at:at+n], acc.u[at:at+n], x.u[xi:xi+n])
	default:
		return false
	}
	normalizeRange(acc, at, at+n)
	return true
}

// combineFloats sets dst[i] = kind(a[i], b[i]); dst may be a.
func combineFloats[T float32 | float64](kind binaryKind, dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	switch kind {
	case binAdd:
		addFloat(dst, a, b)
	case binMul:
		mulFloat(dst, a, b)
	case binMax:
		for i := range dst {
			dst[i] = floatMax(a[i], b[i])
		}
	default:
		for i := range dst {
			dst[i] = combineFloat(kind, a[i], b[i])
		}
	}
}

// combineInts sets dst[i] = kind(a[i], b[i]); dst may be a.
func combineInts[T int64 | uint64](kind binaryKind, dst, a, b []T) {
	a, b = a[:len(dst)], b[:len(dst)]
	if kind == binAdd {
		for i := range dst {
			dst[i] = a[i] + b[i]
		}
		return
	}
	for i := range dst {
		dst[i] = combineInt(kind, a[i], b[i])
	}
}
