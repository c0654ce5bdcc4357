package stablehlo

import (
	"math"
	"math/bits"
)

// stablehlo.fft: discrete Fourier transforms over the trailing dimensions
// named by fft_length, in complex128 whatever the element type (complex<f32>
// results are rounded once). Lengths that are powers of two run an
// iterative radix-2 transform; others run Bluestein's algorithm, a
// convolution through power-of-two transforms, so every length costs
// O(n log n).

func evalFFT(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 {
		return nil, invalidf("fft takes 1 operand, got %d", len(in))
	}
	var typ string
	if a := op.attrs["fft_type"]; a != nil {
		typ = enumWord(a)
	} else if a := op.attrs["type"]; a != nil {
		typ = enumWord(a)
	}
	lengths, err := op.ints("fft_length", "length")
	if err != nil {
		return nil, err
	}
	a, rt := in[0], op.resultTypes[0]
	rank, l := len(a.t.Shape), len(lengths)
	if l < 1 || l > 3 || l > rank || len(rt.Shape) != rank {
		return nil, invalidf("fft over %d dimensions of %s to %s", l, a.t, rt)
	}
	for _, n := range lengths {
		if n < 0 {
			return nil, invalidf("fft length %d is negative", n)
		}
	}
	lead := rank - l
	trailing := func(shape []int64) []int64 { return shape[lead:] }
	spectrum := func() []int64 { // lengths with the last halved: an RFFT's result
		s := append([]int64(nil), lengths...)
		s[l-1] = s[l-1]/2 + 1
		return s
	}
	sameLead := shapesEqual(a.t.Shape[:lead], rt.Shape[:lead])
	switch typ {
	case "FFT", "IFFT":
		if !a.t.Elem.isComplex() || !a.t.Equal(rt) || !shapesEqual(trailing(a.t.Shape), lengths) {
			return nil, invalidf("%s of %s to %s with lengths %v", typ, a.t, rt, lengths)
		}
		out := newArray(rt)
		copyPreemptible(out.c, a.c)
		for d := lead; d < rank; d++ {
			transformAxis(out.c, a.t.Shape, d, typ == "IFFT")
		}
		if typ == "IFFT" {
			scaleBy(out.c, lengths)
		}
		out.normalize()
		return []*array{out}, nil
	case "RFFT":
		if complexOf(a.t.Elem) != rt.Elem || !sameLead || !shapesEqual(trailing(a.t.Shape), lengths) ||
			!shapesEqual(trailing(rt.Shape), spectrum()) {
			return nil, invalidf("RFFT of %s to %s with lengths %v", a.t, rt, lengths)
		}
		full := make([]complex128, a.size())
		for i := range full {
			full[i] = complex(a.floatAt(i), 0)
		}
		for d := lead; d < rank; d++ {
			transformAxis(full, a.t.Shape, d, false)
		}
		out := newArray(rt)
		n, m := int(lengths[l-1]), int(rt.Shape[rank-1])
		for row := range len(full) / max(n, 1) {
			copy(out.c[row*m:(row+1)*m], full[row*n:row*n+m])
		}
		out.normalize()
		return []*array{out}, nil
	case "IRFFT":
		if !a.t.Elem.isComplex() || complexPart(a.t.Elem) != rt.Elem || !sameLead ||
			!shapesEqual(trailing(rt.Shape), lengths) || !shapesEqual(trailing(a.t.Shape), spectrum()) {
			return nil, invalidf("IRFFT of %s to %s with lengths %v", a.t, rt, lengths)
		}
		half := append([]complex128(nil), a.c...)
		for d := lead; d < rank-1; d++ {
			transformAxis(half, a.t.Shape, d, true)
		}
		// Each line along the last dimension is now the spectrum of a real
		// sequence: restore its upper half as the conjugates of the lower.
		n, m := int(lengths[l-1]), int(a.t.Shape[rank-1])
		total := points(lengths)
		out := newArray(rt)
		line := make([]complex128, n)
		p := newFFTPlan(n)
		for row := range len(half) / max(m, 1) {
			src := half[row*m : (row+1)*m]
			for k := range line {
				if k < m {
					line[k] = src[k]
				} else {
					line[k] = conj(src[n-k])
				}
			}
			p.inverse(line)
			for k, z := range line {
				out.setFloat(row*n+k, real(z)/total)
			}
		}
		return []*array{out}, nil
	}
	return nil, invalidf("unknown fft type %q", typ)
}

// points is the number of points a transform over lengths sums: an inverse
// transform's normalization divides by it.
func points(lengths []int64) float64 {
	total := 1.0
	for _, n := range lengths {
		total *= float64(n)
	}
	return total
}

// scaleBy divides x by the points of a transform over lengths.
func scaleBy(x []complex128, lengths []int64) {
	total := complex(points(lengths), 0)
	for i := range x {
		x[i] /= total
	}
}

// transformAxis runs the unnormalized DFT (inverse: with exponent sign +)
// of every line of x, a row-major array of shape, along dimension d.
func transformAxis(x []complex128, shape []int64, d int, inverse bool) {
	n := int(shape[d])
	if n <= 1 || len(x) == 0 {
		return
	}
	inner := 1
	for _, s := range shape[d+1:] {
		inner *= int(s)
	}
	outer := len(x) / (n * inner)
	p := newFFTPlan(n)
	line := make([]complex128, n)
	for o := range outer {
		for in := range inner {
			base := o*n*inner + in
			for k := range line {
				line[k] = x[base+k*inner]
			}
			if inverse {
				p.inverse(line)
			} else {
				p.forward(line)
			}
			for k, z := range line {
				x[base+k*inner] = z
			}
		}
	}
}

// fftPlan computes DFTs of one length n. It is not safe for concurrent use.
type fftPlan struct {
	n       int
	twiddle []complex128 // exp(-2πik/n), k < n/2 (a power of two)
	rev     []int        // bit-reversal permutation (a power of two)

	// Bluestein's algorithm, for other lengths.
	chirp  []complex128 // exp(-πik²/n), k < n
	kernel []complex128 // the forward transform of conj(chirp), wrapped to m
	inner  *fftPlan     // of length m, a power of two ≥ 2n-1
	work   []complex128
}

func newFFTPlan(n int) *fftPlan {
	p := &fftPlan{n: n}
	if n&(n-1) == 0 {
		p.twiddle = make([]complex128, n/2)
		for k := range p.twiddle {
			s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
			p.twiddle[k] = complex(c, s)
		}
		p.rev = make([]int, n)
		shift := 64 - bits.Len(uint(max(n-1, 0)))
		for i := range p.rev {
			if n > 1 {
				p.rev[i] = int(bits.Reverse64(uint64(i)) >> shift)
			}
		}
		return p
	}
	m := 1
	for m < 2*n-1 {
		m <<= 1
	}
	p.inner = newFFTPlan(m)
	p.chirp = make([]complex128, n)
	for k := range p.chirp {
		// k² mod 2n keeps the angle small, so it stays exact for large k.
		s, c := math.Sincos(-math.Pi * float64(k*k%(2*n)) / float64(n))
		p.chirp[k] = complex(c, s)
	}
	p.kernel = make([]complex128, m)
	for k := range n {
		p.kernel[k] = conj(p.chirp[k])
		if k > 0 {
			p.kernel[m-k] = conj(p.chirp[k])
		}
	}
	p.inner.forward(p.kernel)
	p.work = make([]complex128, m)
	return p
}

// forward replaces x (of length n) by its DFT, Σ x[j]·exp(-2πijk/n).
func (p *fftPlan) forward(x []complex128) {
	if p.twiddle != nil {
		p.radix2(x)
		return
	}
	// X[k] = chirp[k] · Σ_j (x[j]·chirp[j]) · conj(chirp[k-j]): a
	// convolution, computed as a product of power-of-two transforms.
	w := p.work
	clear(w)
	for j, v := range x {
		w[j] = v * p.chirp[j]
	}
	p.inner.forward(w)
	for k := range w {
		w[k] *= p.kernel[k]
	}
	p.inner.inverse(w)
	scale := complex(1/float64(len(w)), 0)
	for k := range x {
		x[k] = w[k] * scale * p.chirp[k]
	}
}

// inverse replaces x by its unnormalized inverse DFT, Σ x[j]·exp(+2πijk/n):
// the forward transform of the conjugate, conjugated.
func (p *fftPlan) inverse(x []complex128) {
	for i, v := range x {
		x[i] = conj(v)
	}
	p.forward(x)
	for i, v := range x {
		x[i] = conj(v)
	}
}

func (p *fftPlan) radix2(x []complex128) {
	n := p.n
	for i, j := range p.rev {
		if i < j {
			x[i], x[j] = x[j], x[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half, step := size/2, n/size
		for start := 0; start < n; start += size {
			for k := range half {
				a, b := x[start+k], x[start+k+half]*p.twiddle[k*step]
				x[start+k], x[start+k+half] = a+b, a-b
			}
		}
	}
}
