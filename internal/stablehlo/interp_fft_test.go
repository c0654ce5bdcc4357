package stablehlo

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand"
	"strings"
	"testing"
)

// directDFT transforms x (row-major, shape) along each of the last len(dims)
// dimensions by the defining sum, sign -1 (forward) or +1 (unnormalized
// inverse).
func directDFT(x []complex128, shape []int64, axes int, sign float64) []complex128 {
	out := append([]complex128(nil), x...)
	for d := len(shape) - axes; d < len(shape); d++ {
		n := int(shape[d])
		inner := 1
		for _, s := range shape[d+1:] {
			inner *= int(s)
		}
		src := append([]complex128(nil), out...)
		for base := range len(out) {
			k := base / inner % n
			start := base - k*inner
			var sum complex128
			for j := range n {
				sum += src[start+j*inner] * cmplx.Rect(1, sign*2*math.Pi*float64(j*k%n)/float64(n))
			}
			out[base] = sum
		}
	}
	return out
}

// runFFT runs one stablehlo.fft on x and returns the result's elements.
func runFFT(t *testing.T, typ string, in TensorType, x *Tensor, lengths []int64, out TensorType) *array {
	t.Helper()
	ls := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(lengths)), ", "), "[]")
	m := mustParse(t, fmt.Sprintf("func.func @main(%%x: %s) -> %s {\n  %%r = stablehlo.fft %%x, type = %s, length = [%s] : (%s) -> %s\n  return %%r : %s\n}",
		in, out, typ, ls, in, out, out))
	got, err := runMain(t, m, x)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return decodeTensor(got[0])
}

// maxError is the largest |got-want| over the largest |want|.
func maxError(got, want []complex128) float64 {
	var diff, scale float64
	for k := range want {
		diff = max(diff, cmplx.Abs(got[k]-want[k]))
		scale = max(scale, cmplx.Abs(want[k]))
	}
	return diff / max(scale, 1e-300)
}

// TestFFTMatchesDirectSum checks every transform type against the DFT's
// defining sum, over power-of-two lengths (radix-2) and others (Bluestein),
// one to three dimensions, batched, in both complex types.
func TestFFTMatchesDirectSum(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct{ batch, lengths []int64 }{
		{nil, []int64{1}}, {[]int64{3}, []int64{2}}, {[]int64{3}, []int64{3}}, {[]int64{2}, []int64{5}},
		{[]int64{3}, []int64{8}}, {[]int64{2}, []int64{12}}, {nil, []int64{17}}, {nil, []int64{64}},
		{[]int64{2}, []int64{100}}, {[]int64{2}, []int64{4, 6}}, {nil, []int64{2, 3, 4}}, {nil, []int64{5, 7}},
	} {
		shape := append(append([]int64(nil), c.batch...), c.lengths...)
		n := 1
		for _, d := range shape {
			n *= int(d)
		}
		axes := len(c.lengths)
		total := points(c.lengths)
		for _, e := range []ElemType{C64, C128} {
			tol := 1e-12
			if e == C64 {
				tol = 1e-6
			}
			part := complexPart(e)
			name := fmt.Sprintf("%v/%v", shape, e)
			t.Run("FFT_IFFT/"+name, func(t *testing.T) {
				x := make([]complex128, n)
				for k := range x {
					x[k] = complex(rng.NormFloat64(), rng.NormFloat64())
					if e == C64 {
						x[k] = complex(float64(float32(real(x[k]))), float64(float32(imag(x[k]))))
					}
				}
				typ := TensorType{Elem: e, Shape: shape}
				got := runFFT(t, "FFT", typ, complexTensor(e, shape, x), c.lengths, typ)
				if err := maxError(got.c, directDFT(x, shape, axes, -1)); err > tol {
					t.Errorf("FFT error %.3g", err)
				}
				inv := directDFT(x, shape, axes, 1)
				for k := range inv {
					inv[k] /= complex(total, 0)
				}
				got = runFFT(t, "IFFT", typ, complexTensor(e, shape, x), c.lengths, typ)
				if err := maxError(got.c, inv); err > tol {
					t.Errorf("IFFT error %.3g", err)
				}
			})
			t.Run("RFFT_IRFFT/"+name, func(t *testing.T) {
				x := make([]complex128, n)
				signal := newArray(TensorType{Elem: part, Shape: shape})
				for k := range x {
					signal.setFloat(k, rng.NormFloat64())
					x[k] = complex(signal.floatAt(k), 0)
				}
				full := directDFT(x, shape, axes, -1)
				last := shape[len(shape)-1]
				half := append(append([]int64(nil), shape[:len(shape)-1]...), last/2+1)
				spectrum := make([]complex128, 0, len(full))
				for row := range len(full) / int(last) {
					spectrum = append(spectrum, full[row*int(last):row*int(last)+int(last/2+1)]...)
				}
				ht := TensorType{Elem: e, Shape: half}
				got := runFFT(t, "RFFT", signal.t, encodeArray(signal), c.lengths, ht)
				if err := maxError(got.c, spectrum); err > tol {
					t.Errorf("RFFT error %.3g", err)
				}
				back := runFFT(t, "IRFFT", ht, complexTensor(e, half, spectrum), c.lengths, signal.t)
				restored := make([]complex128, n)
				for k := range restored {
					restored[k] = complex(back.floatAt(k), 0)
				}
				if err := maxError(restored, x); err > tol {
					t.Errorf("IRFFT of the RFFT: error %.3g against the signal", err)
				}
			})
		}
	}
}

// TestFFTRefusesMismatchedTypes checks that an fft whose types do not fit
// its kind and lengths is an invalid program.
func TestFFTRefusesMismatchedTypes(t *testing.T) {
	for _, c := range []struct{ name, typ, in, out, lengths string }{
		{"fft_of_real", "FFT", "tensor<4xf32>", "tensor<4xcomplex<f32>>", "4"},
		{"fft_length", "FFT", "tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>", "8"},
		{"rfft_result_length", "RFFT", "tensor<8xf32>", "tensor<8xcomplex<f32>>", "8"},
		{"rfft_result_type", "RFFT", "tensor<8xf32>", "tensor<5xcomplex<f64>>", "8"},
		{"irfft_operand_length", "IRFFT", "tensor<8xcomplex<f32>>", "tensor<8xf32>", "8"},
		{"too_many_dimensions", "FFT", "tensor<2xcomplex<f32>>", "tensor<2xcomplex<f32>>", "1, 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, fmt.Sprintf("func.func @main(%%x: %s) -> %s {\n  %%r = stablehlo.fft %%x, type = %s, length = [%s] : (%s) -> %s\n  return %%r : %s\n}",
				c.in, c.out, c.typ, c.lengths, c.in, c.out, c.out))
			in := m.Main().Params()[0].Type
			x := &Tensor{Type: in, Data: make([]byte, in.NumElements()*int64(in.Elem.ByteSize()))}
			if _, err := runMain(t, m, x); errorCode(err) != InvalidArgument {
				t.Errorf("Run error = %v, want InvalidArgument", err)
			}
		})
	}
}
