package stablehlo

import "math"

// Householder QR: the LAPACK custom calls JAX's CPU lowering emits for
// jnp.linalg.qr (and so jax.nn.initializers.orthogonal):
// lapack_{s,d}geqrf_ffi(a) -> (a, tau) and
// lapack_{s,d}orgqr_ffi(a, tau) -> q. The reflectors follow LAPACK's
// dlarfg convention, H = I - tau v vᵀ with v[0] = 1 and beta = -sign(alpha)
// |x|, so R's signs match LAPACK's for the same input.

// householder computes the reflector of column j of matrix b, rows j..m-1:
// it stores beta on the diagonal, v[1:] below it, and returns tau.
func householder(a matrices, b, j int) float64 {
	alpha := a.at(b, j, j)
	norm := 0.0
	for i := j + 1; i < a.rows; i++ {
		norm = math.Hypot(norm, a.at(b, i, j))
	}
	if norm == 0 {
		return 0
	}
	beta := -math.Copysign(math.Hypot(alpha, norm), alpha)
	scale := 1 / (alpha - beta)
	for i := j + 1; i < a.rows; i++ {
		a.set(b, i, j, a.at(b, i, j)*scale)
	}
	a.set(b, j, j, beta)
	return (beta - alpha) / beta
}

// applyReflector applies H = I - tau v vᵀ, v = [1, refl[j+1:, j]], from the
// left to columns from..cols-1 of target rows j..m-1.
func applyReflector(refl matrices, rb, j int, tau float64, target matrices, tb, from int) {
	if tau == 0 {
		return
	}
	for c := from; c < target.cols; c++ {
		dot := target.at(tb, j, c)
		for i := j + 1; i < target.rows; i++ {
			dot += refl.at(rb, i, j) * target.at(tb, i, c)
		}
		dot *= tau
		target.set(tb, j, c, target.at(tb, j, c)-dot)
		for i := j + 1; i < target.rows; i++ {
			target.set(tb, i, c, target.at(tb, i, c)-dot*refl.at(rb, i, j))
		}
	}
}

func evalLapackGeqrf(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("geqrf takes a and returns a and tau")
	}
	a, err := toMatrices(in[0])
	if err != nil {
		return nil, err
	}
	k := min(a.rows, a.cols)
	if !op.resultTypes[0].Equal(in[0].t) || !op.resultTypes[1].Elem.isFloat() {
		return nil, invalidf("geqrf results must be a's type and a float tau")
	}
	tau := matrices{batch: a.batch, rows: 1, cols: k, data: make([]float64, a.batch*k)}
	if op.resultTypes[1].NumElements() != int64(len(tau.data)) {
		return nil, invalidf("geqrf tau must hold min(rows, cols) = %d elements per matrix", k)
	}
	for b := 0; b < a.batch; b++ {
		for j := 0; j < k; j++ {
			t := householder(a, b, j)
			tau.set(b, 0, j, t)
			applyReflector(a, b, j, t, a, b, j+1)
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), tau.toArray(op.resultTypes[1])}, nil
}

// evalLapackOrgqr forms the m×n matrix Q = H_0 ... H_{k-1} I[:, :n] from the
// reflectors in a's first k columns (m >= n >= k, as LAPACK requires).
func evalLapackOrgqr(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || len(op.resultTypes) != 1 {
		return nil, invalidf("orgqr takes a and tau and returns q")
	}
	a, err := toMatrices(in[0])
	if err != nil {
		return nil, err
	}
	tau, err := tauVectors(in[1], a.batch)
	if err != nil {
		return nil, err
	}
	k := tau.cols
	if !op.resultTypes[0].Equal(in[0].t) || a.rows < a.cols || a.cols < k {
		return nil, invalidf("orgqr needs rows >= cols >= len(tau) and returns a's type")
	}
	q := matrices{batch: a.batch, rows: a.rows, cols: a.cols, data: make([]float64, len(a.data))}
	for b := 0; b < a.batch; b++ {
		for i := 0; i < a.cols; i++ {
			q.set(b, i, i, 1)
		}
		for j := k - 1; j >= 0; j-- {
			applyReflector(a, b, j, tau.at(b, 0, j), q, b, j)
		}
	}
	return []*array{q.toArray(op.resultTypes[0])}, nil
}

// tauVectors reads a [batch..., k] float array as batch rows of k.
func tauVectors(t *array, batch int) (matrices, error) {
	if len(t.t.Shape) < 1 || !t.t.Elem.isFloat() {
		return matrices{}, invalidf("tau must be a float vector per matrix, got %s", t.t)
	}
	k := int(t.t.Shape[len(t.t.Shape)-1])
	if t.size() != batch*k {
		return matrices{}, invalidf("tau %s does not match %d matrices", t.t, batch)
	}
	return matrices{batch: batch, rows: 1, cols: k, data: floatData(t)}, nil
}
