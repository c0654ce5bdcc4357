package stablehlo

import (
	"math/bits"
	"slices"
)

// windowPlan walks the windows of reduce_window and select_and_scatter.
// Along each dimension it solves once, for every output position, which
// input elements its window reads (padding and base-dilation holes left
// out): an arithmetic run of offsets. A window is then the product of
// short runs rather than a coordinate computed and bounds-checked per
// window element, and a window far larger than its input costs only the
// elements it covers.
type windowPlan struct {
	out  []int64
	taps [][]tapRun // taps[d][o]: offsets along d (times d's input stride) read by output position o
}

// tapRun is the offsets first, first+step, ..., n of them.
type tapRun struct{ first, step, n int }

// windowAttrs are a windowed op's window: its sizes, strides, base and
// window dilations (1 where absent) and padding (low and high for each
// dimension, 0 where absent).
type windowAttrs struct{ size, strides, baseDil, winDil, pad []int64 }

// readWindow reads and checks op's window attributes for an input of rank
// rank. Only an op with dilations (reduce_window; select_and_scatter has
// none) reads them.
func readWindow(op *operation, rank int, dilations bool) (windowAttrs, error) {
	ones := make([]int64, rank)
	for i := range ones {
		ones[i] = 1
	}
	w := windowAttrs{baseDil: ones, winDil: ones}
	var err error
	if w.size, err = op.ints("window_dimensions"); err != nil {
		return w, err
	}
	orOnes := func(name string) ([]int64, error) {
		v, err := op.optInts(name)
		if v == nil && err == nil {
			v = ones
		}
		return v, err
	}
	if w.strides, err = orOnes("window_strides"); err != nil {
		return w, err
	}
	if dilations {
		if w.baseDil, err = orOnes("base_dilations"); err != nil {
			return w, err
		}
		if w.winDil, err = orOnes("window_dilations"); err != nil {
			return w, err
		}
	}
	if w.pad, err = op.optInts("padding"); err != nil {
		return w, err
	}
	if w.pad == nil {
		w.pad = make([]int64, 2*rank)
	}
	if len(w.size) != rank || len(w.strides) != rank || len(w.baseDil) != rank || len(w.winDil) != rank || len(w.pad) != 2*rank {
		return w, invalidf("window attributes do not match rank %d", rank)
	}
	for d := range rank {
		if w.size[d] <= 0 || w.strides[d] <= 0 || w.baseDil[d] <= 0 || w.winDil[d] <= 0 {
			return w, invalidf("window sizes, strides and dilations must be positive")
		}
	}
	return w, nil
}

// newWindowPlan plans the windows of an input of shape in over an output of
// shape out. All slices have the input's rank (pad twice it); sizes,
// strides and dilations are positive (readWindow checks). Attributes whose
// products overflow int64 arithmetic are refused.
func newWindowPlan(in, out, window, wstrides, bdil, wdil, pad []int64) (*windowPlan, error) {
	const limit = 1 << 61
	for d := range in {
		if window[d] > limit/wdil[d] || out[d] > 0 && wstrides[d] > limit/out[d] || in[d] > 0 && bdil[d] > limit/in[d] ||
			min(pad[2*d], pad[2*d+1]) < -limit || max(pad[2*d], pad[2*d+1]) > limit {
			return nil, invalidf("window attributes of dimension %d overflow", d)
		}
	}
	st := strides(in)
	p := &windowPlan{out: out, taps: make([][]tapRun, len(in))}
	for d := range in {
		p.taps[d] = make([]tapRun, out[d])
		for o := range out[d] {
			// The window covers the dilated input coordinates lo, lo+wdil,
			// ..., hi; input element i sits at i*bdil.
			lo := o*wstrides[d] - pad[2*d]
			hi := lo + (window[d]-1)*wdil[d]
			if hi < 0 {
				continue
			}
			iLo, iHi := max(0, (lo+bdil[d]-1)/bdil[d]), min(in[d]-1, hi/bdil[d])
			r, m, ok := solveCongruence(bdil[d], wdil[d], lo)
			if !ok || iLo > iHi {
				continue
			}
			first := iLo + ((r-iLo)%m+m)%m
			if first > iHi {
				continue
			}
			p.taps[d][o] = tapRun{first: int(first) * st[d], step: int(m) * st[d], n: int((iHi-first)/m + 1)}
		}
	}
	return p, nil
}

// solveCongruence returns the solutions of i*a ≡ c (mod n) as i ≡ r (mod m),
// for positive a and n, or false when there are none.
func solveCongruence(a, n, c int64) (r, m int64, ok bool) {
	g := gcd64(a, n)
	if c%g != 0 {
		return 0, 0, false
	}
	m = n / g
	if m == 1 {
		return 0, 1, true
	}
	cm := (c/g%m + m) % m
	hi, lo := bits.Mul64(uint64(cm), uint64(modInverse((a/g)%m, m)))
	return int64(bits.Rem64(hi, lo, uint64(m))), m, true
}

// modInverse returns x with a*x ≡ 1 (mod m), for a coprime to m > 1.
func modInverse(a, m int64) int64 {
	oldR, r := a, m
	oldS, s := int64(1), int64(0)
	for r != 0 {
		q := oldR / r
		oldR, r = r, oldR-q*r
		oldS, s = s, oldS-q*s
	}
	return (oldS%m + m) % m
}

// forEachRow calls f for every row of outputs along the last dimension, in
// row-major order: outputs o, ..., o+n-1, where output o+k reads the input
// offsets offs+k*shift, in row-major window order. Where the last
// dimension's windows differ in shape (padding at its edges), rows are one
// output long. offs is reused between calls. forEachRow stops at the first
// error f returns, or at ev's cancellation.
func (p *windowPlan) forEachRow(ev *evaluator, f func(o int, offs []int, n, shift int) error) error {
	rank := len(p.out)
	if rank == 0 {
		return f(0, []int{0}, 1, 0)
	}
	last := p.taps[rank-1]
	rowLen, shift := 1, 0
	if uniformRuns(last) {
		rowLen = len(last)
		if rowLen > 1 {
			shift = last[1].first - last[0].first
		}
	}
	rowShape := slices.Clone(p.out)
	rowShape[rank-1] /= int64(rowLen)
	var offs, next []int
	o := 0
	var err error
	walkIndex(rowShape, func(oi []int64) bool {
		if o%64 == 0 {
			if err = ev.ctx.Err(); err != nil {
				return false
			}
		}
		offs = append(offs[:0], 0)
		for d, i := range oi {
			t := p.taps[d][i]
			next = next[:0]
			for _, base := range offs {
				for k, q := 0, base+t.first; k < t.n; k, q = k+1, q+t.step {
					next = append(next, q)
				}
			}
			offs, next = next, offs
		}
		err = f(o, offs, rowLen, shift)
		o += rowLen
		return err == nil
	})
	return err
}

// uniformRuns reports whether every run has the same length and step and
// starts one fixed distance after the one before.
func uniformRuns(runs []tapRun) bool {
	for i := 1; i < len(runs); i++ {
		r, p := runs[i], runs[i-1]
		if r.n != runs[0].n || r.step != runs[0].step || r.first-p.first != runs[1].first-runs[0].first {
			return false
		}
	}
	return len(runs) > 0
}

// forEach calls f for every output, in row-major order, with the input
// offsets of its window in row-major window order; see forEachRow.
func (p *windowPlan) forEach(ev *evaluator, f func(o int, offs []int) error) error {
	var shifted []int
	return p.forEachRow(ev, func(o int, offs []int, n, shift int) error {
		for k := range n {
			shifted = shifted[:0]
			for _, q := range offs {
				shifted = append(shifted, q+k*shift)
			}
			if err := f(o+k, shifted); err != nil {
				return err
			}
		}
		return nil
	})
}

// foldRow folds, for k < len(acc), x at offs+k*shift into acc[k] in the
// order of offs, as kind's typed loop.
func foldRow[T float32 | float64](kind binaryKind, acc, x []T, offs []int, shift int) {
	for _, p := range offs {
		if shift == 1 {
			combineFloats(kind, acc, acc, x[p:p+len(acc)])
			continue
		}
		for k := range acc {
			acc[k] = combineFloat(kind, acc[k], x[p+k*shift])
		}
	}
}
