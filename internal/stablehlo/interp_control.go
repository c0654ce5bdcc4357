package stablehlo

// Control flow: while, case, if, func.call, and the identity-like ops.

func evalWhile(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(op.regions) != 2 {
		return nil, invalidf("while needs cond and body regions")
	}
	cond, body := op.regions[0], op.regions[1]
	vals := append([]*array(nil), in...)
	// The body may write into a carry in place (ownedCarries): an initial
	// value that is read after the loop, or passed twice, goes in as a view
	// marked shared.
	var viewed []*array
	for j, a := range vals {
		if !a.shared && !ownsOperand(op, in, j) {
			c := *a
			c.shared = true
			vals[j] = &c
			viewed = append(viewed, a)
		}
	}
	if len(cond.rets) != 1 {
		return nil, invalidf("while condition must return an i1 scalar")
	}
	if len(body.rets) != len(vals) {
		return nil, invalidf("while body returned %d values, want %d", len(body.rets), len(vals))
	}
	// The regions' results go into two lists used in turn: the body binds
	// its arguments before it writes its results.
	test, next := make([]*array, 1), make([]*array, len(vals))
	for {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		c, err := ev.runRegionInto(cond, vals, test)
		if err != nil {
			return nil, err
		}
		if c[0].b == nil || c[0].size() != 1 {
			return nil, invalidf("while condition must return an i1 scalar")
		}
		if !c[0].b[0] {
			markAliasedInputs(op, viewed, vals)
			return vals, nil
		}
		if _, err := ev.runRegionInto(body, vals, next); err != nil {
			return nil, err
		}
		vals, next = next, vals
	}
}

// markAliasedInputs marks shared each of inputs whose storage a result of
// op that is read later still holds (the loop handed back its view, or a
// view of that): a later last reader of the input must not write into it in
// place. A result nothing reads leaves the input free for that.
func markAliasedInputs(op *operation, inputs, results []*array) {
	for _, a := range inputs {
		for k, r := range results {
			if (k >= len(op.resultLive) || op.resultLive[k]) && sharesStorage(a, r) {
				a.markShared()
				break
			}
		}
	}
}

func evalCase(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || in[0].size() != 1 || len(op.regions) == 0 {
		return nil, invalidf("case needs a scalar index and branches")
	}
	idx := in[0].intAt(0)
	if idx < 0 || idx >= int64(len(op.regions)) {
		idx = int64(len(op.regions) - 1) // out of range runs the last branch
	}
	return ev.runRegion(op.regions[idx], nil)
}

func evalIf(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || in[0].b == nil || in[0].size() != 1 || len(op.regions) != 2 {
		return nil, invalidf("if needs an i1 scalar and two branches")
	}
	if in[0].b[0] {
		return ev.runRegion(op.regions[0], nil)
	}
	return ev.runRegion(op.regions[1], nil)
}

func evalCall(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	f := ev.mod.funcs[op.callee]
	if f == nil || f.body == nil {
		return nil, invalidf("unknown function @%s", op.callee)
	}
	for i, a := range in {
		if !a.t.Equal(f.params[i].Type) {
			return nil, invalidf("argument %d of @%s has type %s, want %s", i, op.callee, a.t, f.params[i].Type)
		}
	}
	if f.threefry != nil {
		return ev.callThreefry(f, in)
	}
	return ev.call(f, in)
}

// identityCustomCalls are custom_call targets JAX emits that do not change
// values in a single global (unpartitioned) run.
var identityCustomCalls = map[string]bool{
	"Sharding":                   true,
	"annotate_device_placement":  true,
	"MoveToHost":                 true,
	"MoveToDevice":               true,
	"xla.sdy.FuncResultSharding": true,
	"LayoutConstraint":           true,
}

// linalgCustomCalls are the LAPACK targets of JAX's CPU lowering (and
// jaxlib's perturbed tridiagonal solve) that the interpreter implements,
// each routine instantiated for the kind its prefix names: float64
// arithmetic for s and d, complex128 for c and z.
var linalgCustomCalls = map[string]evalFunc{
	"lapack_strsm_ffi":  evalLapackTrsm[float64],
	"lapack_dtrsm_ffi":  evalLapackTrsm[float64],
	"lapack_ctrsm_ffi":  evalLapackTrsm[complex128],
	"lapack_ztrsm_ffi":  evalLapackTrsm[complex128],
	"lapack_spotrf_ffi": evalLapackPotrf[float64],
	"lapack_dpotrf_ffi": evalLapackPotrf[float64],
	"lapack_cpotrf_ffi": evalLapackPotrf[complex128],
	"lapack_zpotrf_ffi": evalLapackPotrf[complex128],
	"lapack_sgetrf_ffi": evalLapackGetrf[float64],
	"lapack_dgetrf_ffi": evalLapackGetrf[float64],
	"lapack_cgetrf_ffi": evalLapackGetrf[complex128],
	"lapack_zgetrf_ffi": evalLapackGetrf[complex128],
	"lapack_sgeqrf_ffi": evalLapackGeqrf[float64],
	"lapack_dgeqrf_ffi": evalLapackGeqrf[float64],
	"lapack_cgeqrf_ffi": evalLapackGeqrf[complex128],
	"lapack_zgeqrf_ffi": evalLapackGeqrf[complex128],
	"lapack_sorgqr_ffi": evalLapackOrgqr[float64],
	"lapack_dorgqr_ffi": evalLapackOrgqr[float64],
	"lapack_cungqr_ffi": evalLapackOrgqr[complex128],
	"lapack_zungqr_ffi": evalLapackOrgqr[complex128],
	"lapack_ssyevd_ffi": evalLapackSyevd[float64],
	"lapack_dsyevd_ffi": evalLapackSyevd[float64],
	"lapack_cheevd_ffi": evalLapackSyevd[complex128],
	"lapack_zheevd_ffi": evalLapackSyevd[complex128],
	"lapack_sgtsv_ffi":  evalLapackGtsv[float64],
	"lapack_dgtsv_ffi":  evalLapackGtsv[float64],
	"lapack_cgtsv_ffi":  evalLapackGtsv[complex128],
	"lapack_zgtsv_ffi":  evalLapackGtsv[complex128],
	"lapack_sgesdd_ffi": evalLapackGesdd[float64],
	"lapack_sgesvd_ffi": evalLapackGesdd[float64],
	"lapack_dgesvd_ffi": evalLapackGesdd[float64],
	"lapack_cgesvd_ffi": evalLapackGesdd[complex128],
	"lapack_zgesvd_ffi": evalLapackGesdd[complex128],
	"lapack_dgesdd_ffi": evalLapackGesdd[float64],
	"lapack_sgeev_ffi":  evalLapackGeev,
	"lapack_dgeev_ffi":  evalLapackGeev,
	"lapack_cgeev_ffi":  evalLapackGeevComplex,
	"lapack_zgeev_ffi":  evalLapackGeevComplex,
	"lapack_sgees_ffi":  evalLapackGeesReal,
	"lapack_sgehrd_ffi": evalLapackGehrd[float64],
	"lapack_sormqr_ffi": evalLapackOrmqr[float64],
	"lapack_dormqr_ffi": evalLapackOrmqr[float64],
	"lapack_cunmqr_ffi": evalLapackOrmqr[complex128],
	"lapack_zunmqr_ffi": evalLapackOrmqr[complex128],
	"lapack_ssytrd_ffi": evalLapackSytrd[float64],
	"lapack_dsytrd_ffi": evalLapackSytrd[float64],
	"lapack_chetrd_ffi": evalLapackSytrd[complex128],
	"lapack_zhetrd_ffi": evalLapackSytrd[complex128],
	"lapack_sgeqp3_ffi": evalLapackGeqp3[float64],
	"lapack_dgeqp3_ffi": evalLapackGeqp3[float64],
	"lapack_cgeqp3_ffi": evalLapackGeqp3[complex128],
	"lapack_zgeqp3_ffi": evalLapackGeqp3[complex128],
	"lapack_dgehrd_ffi": evalLapackGehrd[float64],
	"lapack_cgehrd_ffi": evalLapackGehrd[complex128],
	"lapack_zgehrd_ffi": evalLapackGehrd[complex128],
	"lapack_dgees_ffi":  evalLapackGeesReal,
	"lapack_cgees_ffi":  evalLapackGeesComplex,
	"lapack_zgees_ffi":  evalLapackGeesComplex,
	"lapack_cgesdd_ffi": evalLapackGesdd[complex128],
	"lapack_zgesdd_ffi": evalLapackGesdd[complex128],

	// jaxlib's own kernel (not LAPACK's), one routine for every element type.
	"tridiagonal_solve_perturbed_ffi": evalTridiagonalSolvePerturbed,
}

func supportedCustomCall(target string) bool {
	return identityCustomCalls[target] || linalgCustomCalls[target] != nil || target == "ApproxTopK"
}

func evalCustomCall(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if f := linalgCustomCalls[op.callee]; f != nil {
		return f(ev, op, in)
	}
	if op.callee == "ApproxTopK" {
		return evalApproxTopK(ev, op, in)
	}
	if !identityCustomCalls[op.callee] {
		return nil, unimplementedf("custom_call @%s is not supported", op.callee)
	}
	return evalIdentity(ev, op, in)
}

// evalMap applies its body to the operands' elements one position at a
// time (the body sees rank-0 tensors).
func evalMap(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	rt := op.resultTypes[0]
	body := op.regions[0]
	if len(body.args) != len(in) || len(body.rets) != 1 {
		return nil, invalidf("map body takes %d arguments and returns one value", len(in))
	}
	for _, a := range in {
		if !shapesEqual(a.t.Shape, rt.Shape) {
			return nil, invalidf("map operands must have the result's shape")
		}
	}
	out := newArray(rt)
	args := make([]*array, len(in))
	n := out.size()
	for k := 0; k < n; k++ {
		if k%4096 == 0 {
			if err := ev.ctx.Err(); err != nil {
				return nil, err
			}
		}
		for i, a := range in {
			args[i] = scalarAt(a, k)
		}
		res, err := ev.runRegion(body, args)
		if err != nil {
			return nil, err
		}
		if res[0].t.Elem != rt.Elem || res[0].size() != 1 {
			return nil, invalidf("map body returned %s, want a %s scalar", res[0].t, rt.Elem)
		}
		copyElem(out, k, res[0], 0)
	}
	return []*array{out}, nil
}

func evalGetDimensionSize(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	dim, err := op.int1("dimension", "dim")
	if err != nil {
		return nil, err
	}
	if dim < 0 || int(dim) >= len(in[0].t.Shape) || op.resultTypes[0].Elem.class() != classInt || len(op.resultTypes[0].Shape) != 0 {
		return nil, invalidf("bad get_dimension_size")
	}
	out := newArray(op.resultTypes[0])
	out.i[0] = in[0].t.Shape[dim]
	out.normalize()
	return []*array{out}, nil
}
