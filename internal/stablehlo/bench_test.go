package stablehlo

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand"
	"testing"
	"time"
)

func randomF32Tensor(rng *rand.Rand, shape ...int64) (*Tensor, []float32) {
	t := TensorType{Elem: F32, Shape: shape}
	n := t.NumElements()
	vals := make([]float32, n)
	data := make([]byte, 4*n)
	for i := range vals {
		vals[i] = rng.Float32()*2 - 1
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(vals[i]))
	}
	return &Tensor{Type: t, Data: data}, vals
}

// measure runs the interpreter and a plain Go loop doing the same
// arithmetic b.N times each and reports the ratio of their best times; the
// minimum is far less sensitive than the mean to other load on the machine.
func measure(b *testing.B, m *Module, args []*Tensor, plain func()) {
	b.Helper()
	ctx := context.Background()
	bestInterp, bestNative := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := m.Run(ctx, args); err != nil {
			b.Fatal(err)
		}
		bestInterp = min(bestInterp, time.Since(start))
		b.StopTimer()
		start = time.Now()
		plain()
		bestNative = min(bestNative, time.Since(start))
		b.StartTimer()
	}
	b.ReportMetric(float64(bestInterp)/float64(bestNative), "x-vs-plain-go")
}

func BenchmarkDotGeneral512(b *testing.B) {
	const n = 512
	m := mustParse(b, `func.func @main(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<512x512xf32>, tensor<512x512xf32>) -> tensor<512x512xf32>
  return %0 : tensor<512x512xf32>
}`)
	rng := rand.New(rand.NewSource(1))
	ta, a := randomF32Tensor(rng, n, n)
	tb, bm := randomF32Tensor(rng, n, n)
	out := make([]float32, n*n)
	measure(b, m, []*Tensor{ta, tb}, func() { plainMatmul(out, a, bm, n) })
}

// plainMatmul is the straightforward i-k-j float32 matrix product.
func plainMatmul(out, a, b []float32, n int) {
	clear(out)
	for i := 0; i < n; i++ {
		row := out[i*n : (i+1)*n]
		for k, x := range a[i*n : (i+1)*n] {
			brow := b[k*n : (k+1)*n]
			for j := range row {
				row[j] += x * brow[j]
			}
		}
	}
}

func BenchmarkElementwiseChain1M(b *testing.B) {
	const n = 1 << 20
	m := mustParse(b, `func.func @main(%x: tensor<1048576xf32>, %y: tensor<1048576xf32>) -> tensor<1048576xf32> {
  %0 = stablehlo.multiply %x, %y : tensor<1048576xf32>
  %1 = stablehlo.add %0, %x : tensor<1048576xf32>
  %2 = stablehlo.multiply %1, %y : tensor<1048576xf32>
  %3 = stablehlo.subtract %2, %x : tensor<1048576xf32>
  return %3 : tensor<1048576xf32>
}`)
	rng := rand.New(rand.NewSource(2))
	tx, x := randomF32Tensor(rng, n)
	ty, y := randomF32Tensor(rng, n)
	out := make([]float32, n)
	measure(b, m, []*Tensor{tx, ty}, func() { plainChain(out, x, y) })
}

// plainChain computes the benchmark's four ops in one fused loop.
func plainChain(out, x, y []float32) {
	y = y[:len(x)]
	out = out[:len(x)]
	for i := range x {
		out[i] = (x[i]*y[i]+x[i])*y[i] - x[i]
	}
}

// BenchmarkArgmax256 is jnp.argmax(x, axis=1) of a 256×256 f32 array, as
// JAX lowers it (a reduce of the values and an iota with a body of
// compares and selects), against a plain Go loop finding each row's first
// maximum.
func BenchmarkArgmax256(b *testing.B) {
	const n = 256
	m := mustParse(b, argReduce("f32", "GT", "FLOAT", n, n))
	rng := rand.New(rand.NewSource(1))
	tx, x := randomF32Tensor(rng, n, n)
	init := &Tensor{Type: TensorType{Elem: F32}, Data: binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(math.Inf(-1))))}
	idx := make([]int32, n)
	measure(b, m, []*Tensor{tx, init}, func() {
		for r := range n {
			row := x[r*n : (r+1)*n]
			best := 0
			for c, v := range row {
				if v > row[best] {
					best = c
				}
			}
			idx[r] = int32(best)
		}
	})
}

// BenchmarkJacobi256 times the eigen (jnp.linalg.eigh: tridiagonal QL) and
// Jacobi singular value (jnp.linalg.svd) decompositions of 256×256 matrices
// against 255×255
// ones in the same run: a ratio far above 1 is a power-of-two cache
// conflict, which rows 256 doubles apart in a column walk produce.
func BenchmarkJacobi256(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	matrix := func(n int) []float64 {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				x := rng.NormFloat64()
				a[i*n+j], a[j*n+i] = x, x
			}
		}
		return a
	}
	for _, dec := range []struct {
		name string
		run  func(a []float64, n int)
	}{
		{"eigh", func(a []float64, n int) { eigen(a, n) }},
		{"svd", func(a []float64, n int) { svdTall(a, n, n) }},
	} {
		b.Run(dec.name, func(b *testing.B) {
			best := map[int]time.Duration{255: math.MaxInt64, 256: math.MaxInt64}
			for b.Loop() {
				for n := range best {
					a := matrix(n)
					start := time.Now()
					dec.run(a, n)
					best[n] = min(best[n], time.Since(start))
				}
			}
			b.ReportMetric(float64(best[256].Milliseconds()), "ms-n256")
			b.ReportMetric(float64(best[256])/float64(best[255]), "x-n255")
		})
	}
}
