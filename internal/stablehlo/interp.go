package stablehlo

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
)

// evalFunc runs one op on its operand values and returns its results.
type evalFunc func(ev *evaluator, op *operation, in []*array) ([]*array, error)

// maxElements bounds any single value so hostile programs fail cleanly
// instead of exhausting memory.
const maxElements = 1 << 30

// maxCallDepth bounds func.call recursion.
const maxCallDepth = 256

// evaluator is the state of one Run: it is never shared between goroutines,
// so concurrent Runs of one Module are independent.
type evaluator struct {
	ctx   context.Context
	mod   *Module
	depth int
	frame []*array // frame of the function being evaluated
	ticks uint     // loop iterations, to poll ctx now and then
	proc  *procState

	// operands is a stack of the operand lists of the ops being run, one
	// list per region level, so that running an op allocates none.
	operands []*array
	// single carries one op's single result to runOp (see one).
	single [1]*array
}

// one returns a as an op's only result without allocating a slice: the
// slice is the evaluator's and valid until its next op, which suits runOp,
// the eval functions' one caller that runs ops one after another.
func (ev *evaluator) one(a *array) []*array {
	ev.single[0] = a
	return ev.single[:]
}

// forEach is forEachIndex for evaluators: it polls ctx every few thousand
// iterations (shared across nested loops), so huge windows or index spaces
// stop promptly when the caller cancels, and returns ctx's error.
func (ev *evaluator) forEach(shape []int64, f func(idx []int64)) error {
	var err error
	walkIndex(shape, func(idx []int64) bool {
		ev.ticks++
		if ev.ticks%4096 == 0 {
			if err = ev.ctx.Err(); err != nil {
				return false
			}
		}
		f(idx)
		return true
	})
	return err
}

// Run executes @main on args and returns its results. Arguments must match
// the parameter types exactly (InvalidArgument otherwise). A program with
// collectives or manual partitioning (UsesCollectives) runs as all its
// partitions at once (see RunProcesses): args are the global values, cut by
// the parameters' shardings, and the results are assembled by theirs. Run
// honours ctx cancellation between loop iterations and returns ctx.Err()
// unchanged. It never panics: an internal failure becomes an Internal
// *Error.
func (m *Module) Run(ctx context.Context, args []*Tensor) (out []*Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			out = nil
			err = internalf("interpreter failure: %v\n%s", r, debug.Stack())
		}
	}()
	if m.unsupported != nil {
		return nil, m.unsupported
	}
	in, err := decodeArgs(m.main, args, func(i int) TensorType { return m.main.params[i].Type })
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.collectives {
		return m.runPartitioned(ctx, in)
	}
	ev := &evaluator{ctx: ctx, mod: m}
	res, err := ev.call(m.main, in)
	if err != nil {
		return nil, err
	}
	return encodeResults(res), nil
}

// decodeArgs checks args against the types want gives and views or decodes
// them.
func decodeArgs(f *Func, args []*Tensor, want func(i int) TensorType) ([]*array, error) {
	if len(args) != len(f.params) {
		return nil, invalidf("@main takes %d arguments, got %d", len(f.params), len(args))
	}
	return decodeTensors("argument", args, want)
}

// decodeTensors checks each tensor (what it is, for errors) against the type
// want gives and views or decodes it.
func decodeTensors(what string, ts []*Tensor, want func(i int) TensorType) ([]*array, error) {
	in := make([]*array, len(ts))
	for i, a := range ts {
		w := want(i)
		if a == nil {
			return nil, invalidf("%s %d is nil", what, i)
		}
		if !a.Type.Equal(w) {
			return nil, invalidf("%s %d has type %s, @main declares %s", what, i, a.Type, w)
		}
		if n := w.byteSize(); int64(len(a.Data)) != n {
			return nil, invalidf("%s %d has %d bytes, %s needs %d", what, i, len(a.Data), w, n)
		}
		if in[i] = viewTensor(a); in[i] == nil {
			in[i] = decodeTensor(a)
		}
	}
	return in, nil
}

// encodeResults hands results out as Tensors, without copying where the
// storage already is the encoding.
func encodeResults(res []*array) []*Tensor {
	out := make([]*Tensor, len(res))
	for i, r := range res {
		if data := bytesView(r); data != nil {
			out[i] = &Tensor{Type: r.t, Data: data}
			r.shared = true // a second result naming the same value gets a copy
			continue
		}
		out[i] = encodeArray(r)
	}
	return out
}

func (ev *evaluator) call(f *Func, args []*array) ([]*array, error) {
	if ev.depth >= maxCallDepth {
		return nil, invalidf("call depth exceeds %d at @%s", maxCallDepth, f.Name)
	}
	ev.depth++
	saved := ev.frame
	ev.frame = make([]*array, f.numSlots)
	res, err := ev.runRegion(f.body, args)
	ev.frame = saved
	ev.depth--
	if err != nil {
		return nil, err
	}
	if len(res) != len(f.results) {
		return nil, invalidf("@%s returns %d values, declares %d", f.Name, len(res), len(f.results))
	}
	for i, r := range res {
		if r == nil || !r.t.Equal(f.results[i].Type) {
			return nil, invalidf("@%s result %d does not have the declared type %s", f.Name, i, f.results[i].Type)
		}
	}
	return res, nil
}

// runRegion binds args to the region's block arguments, runs its ops in the
// current frame and returns the terminator's operands.
func (ev *evaluator) runRegion(r *region, args []*array) ([]*array, error) {
	return ev.runRegionInto(r, args, make([]*array, len(r.rets)))
}

// runRegionInto is runRegion writing the terminator's operands into res,
// which has their number, for loops that run a region many times.
func (ev *evaluator) runRegionInto(r *region, args, res []*array) ([]*array, error) {
	if len(args) != len(r.args) {
		return nil, invalidf("region takes %d arguments, got %d", len(r.args), len(args))
	}
	frame := ev.frame
	for i, s := range r.args {
		frame[s] = args[i]
	}
	// Each op's operands go on the evaluator's stack above those of the op
	// running this region; a nested region that grows the stack leaves the
	// lists below it where they were.
	base := len(ev.operands)
	defer func() { ev.operands = ev.operands[:base] }()
	for _, op := range r.ops {
		ev.operands = ev.operands[:base]
		for _, s := range op.operands {
			ev.operands = append(ev.operands, frame[s])
		}
		in := ev.operands[base:len(ev.operands):len(ev.operands)]
		if err := ev.runOp(op, in); err != nil {
			return nil, err
		}
	}
	for i, s := range r.rets {
		res[i] = frame[s]
	}
	return res, nil
}

// runOp evaluates op on in and stores its results in the frame.
func (ev *evaluator) runOp(op *operation, in []*array) error {
	var bytes int64
	for _, t := range op.resultTypes {
		n := t.NumElements()
		if n > maxElements || n < 0 {
			return opError(op, errorf(ResourceExhausted, "result %s is too large: the interpreter holds at most %d elements in one value", t, maxElements))
		}
		bytes += n * t.Elem.storageSize()
	}
	if err := admit(bytes); err != nil {
		return opError(op, err)
	}
	out, err := op.eval(ev, op, in)
	if err != nil {
		return opError(op, err)
	}
	if len(out) != len(op.results) {
		return opError(op, internalf("produced %d results, want %d", len(out), len(op.results)))
	}
	for k, o := range out {
		if o != nil && ((len(op.regions) > 0 && !op.freshResult(k)) || op.callee != "" || heldElsewhere(op, in, o)) {
			o.markShared() // may also live in another slot or frame
		}
	}
	for i, s := range op.results {
		// A declared type that disagrees with the computed one would leave
		// the value's storage in the wrong slice; reject it here.
		if o := out[i]; o == nil || !o.t.Equal(op.resultTypes[i]) || int64(o.size()) != o.t.NumElements() {
			return opError(op, invalidf("result %d does not have the declared type %s", i, op.resultTypes[i]))
		}
		ev.frame[s] = out[i]
	}
	return nil
}

// heldElsewhere says whether result o is also one of op's operands that
// something may still read: one read after op, or one op hands to several
// results. The single result of an op that takes over its operand at the
// operand's last use (reusableOperand) is its only holder.
func heldElsewhere(op *operation, in []*array, o *array) bool {
	for j, a := range in {
		if a == o && (j >= len(op.lastUse) || !op.lastUse[j] || len(op.results) > 1) {
			return true
		}
	}
	return false
}

// freshResult reports whether result k of an op with regions is never a
// value something else holds: the regions of all_reduce, reduce_scatter and
// scatter are reduction computations applied per element, and a case or if
// result may be one a branch made (branchMade).
func (op *operation) freshResult(k int) bool {
	switch op.Name {
	case "stablehlo.all_reduce", "stablehlo.reduce_scatter", "stablehlo.scatter":
		return true
	}
	return k < len(op.branchMade) && op.branchMade[k]
}

// ownsOperand says whether op may write into operand j's storage: op is its
// last reader, no other array shares it, and op does not take it twice.
func ownsOperand(op *operation, in []*array, j int) bool {
	a := in[j]
	return j < len(op.lastUse) && op.lastUse[j] && !a.shared && !containsArray(in[:j], a) && !containsArray(in[j+1:], a)
}

func containsArray(list []*array, a *array) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// opError prefixes err with the op's name and position, keeping its code;
// context errors pass through unchanged.
func opError(op *operation, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.wrapped {
		return err
	}
	return &Error{code: e.code, Msg: fmt.Sprintf("%s: %s: %s", op.at(), op.Name, e.Msg), wrapped: true}
}

// scalarType is the rank-0 type with t's element type.
func scalarType(t TensorType) TensorType { return TensorType{Elem: t.Elem} }
