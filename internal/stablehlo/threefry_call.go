package stablehlo

import (
	"strings"
	"sync/atomic"
)

// JAX lowers jax.random's counter-based generator to a private function
// @threefry2x32 (@threefry2x32_0, ... where it needs several): 20 rounds
// of 32-bit adds, rotations and xors over the counters, in a loop, which
// the interpreter runs about seven times slower than the same rounds in
// Go. A function of that name and signature runs as native Go instead,
// once its first call gave the same words both ways; one that gave other
// words runs as written from then on, so a program whose function of that
// name is something else still gets its own results.

// Where the native threefry stands for a function.
const (
	threefryUnchecked int32 = iota
	threefryAgrees
	threefryDiffers
)

// nativeThreefry is a function that may run as threefry2x32.
type nativeThreefry struct {
	state atomic.Int32
}

// markNativeThreefry finds the functions of m that look like JAX's
// threefry2x32: four ui32 parameters (the two key words, then the two
// counter words), each a scalar or of the results' shape, and two ui32
// results of one shape.
func (m *Module) markNativeThreefry() {
	for name, f := range m.funcs {
		if isThreefryName(name) && threefrySignature(f) {
			f.threefry = &nativeThreefry{}
		}
	}
}

// isThreefryName tells whether name is one JAX gives its threefry2x32
// function.
func isThreefryName(name string) bool {
	return name == "threefry2x32" || strings.HasPrefix(name, "threefry2x32_")
}

func threefrySignature(f *Func) bool {
	if f.Public || f.body == nil || len(f.params) != 4 || len(f.results) != 2 {
		return false
	}
	out := f.results[0].Type
	if out.Elem != U32 || !f.results[1].Type.Equal(out) {
		return false
	}
	for _, p := range f.params {
		if p.Type.Elem != U32 || (len(p.Type.Shape) != 0 && !p.Type.Equal(out)) {
			return false
		}
	}
	return true
}

// callThreefry runs f, whose calls may run natively: the first call runs
// both ways and compares.
func (ev *evaluator) callThreefry(f *Func, in []*array) ([]*array, error) {
	switch f.threefry.state.Load() {
	case threefryAgrees:
		return runThreefry(f, in), nil
	case threefryDiffers:
		return ev.call(f, in)
	}
	native := runThreefry(f, in)
	res, err := ev.call(f, in)
	if err != nil {
		return nil, err
	}
	state := threefryAgrees
	for i := range res {
		if !sameWords(res[i], native[i]) {
			state = threefryDiffers
		}
	}
	f.threefry.state.CompareAndSwap(threefryUnchecked, state)
	return res, nil
}

func sameWords(a, b *array) bool {
	if len(a.u) != len(b.u) {
		return false
	}
	for i := range a.u {
		if uint32(a.u[i]) != uint32(b.u[i]) {
			return false
		}
	}
	return true
}

// runThreefry computes threefry2x32 of each element: keys in[0], in[1]
// (scalars or per element), counters in[2], in[3].
func runThreefry(f *Func, in []*array) []*array {
	o0, o1 := newArray(f.results[0].Type), newArray(f.results[1].Type)
	k0, k1, x0, x1 := in[0], in[1], in[2], in[3]
	word := func(a *array, i int) uint32 {
		if len(a.t.Shape) == 0 {
			return uint32(a.u[0])
		}
		return uint32(a.u[i])
	}
	parallelFor(len(o0.u), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a, b := threefry2x32(word(x0, i), word(x1, i), word(k0, i), word(k1, i))
			o0.u[i], o1.u[i] = uint64(a), uint64(b)
		}
	})
	return []*array{o0, o1}
}
