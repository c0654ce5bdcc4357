package stablehlo

import "math/bits"

// rng_bit_generator, reproducing XLA's expansion bit for bit: the first
// state word is the key; PHILOX (which XLA's CPU backend uses for DEFAULT)
// takes a 128-bit counter from the remaining words, THREE_FRY a 64-bit one.
// Outputs narrower than 32 bits are 32-bit draws truncated, as in XLA.

func evalRngBitGenerator(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("rng_bit_generator takes a state and returns a state and bits")
	}
	state := in[0]
	st, rt := op.resultTypes[0], op.resultTypes[1]
	if state.t.Elem != U64 || len(state.t.Shape) != 1 || state.size() < 2 || !st.Equal(state.t) {
		return nil, unimplementedf("rng_bit_generator state must be ui64[2] or ui64[3], got %s", state.t)
	}
	algo := "DEFAULT"
	if a := op.attr("rng_algorithm", "algorithm"); a != nil {
		algo = enumWord(a)
	}
	if !rt.Elem.isInt() {
		return nil, unimplementedf("rng_bit_generator output type %s is not supported", rt)
	}
	n := int(rt.NumElements())
	var words []uint64 // one value per output element, before truncation
	newState := state.clone()
	switch algo {
	case "DEFAULT", "PHILOX":
		words = philoxBits(state.u, newState.u, n, rt.Elem.bits() == 64)
	case "THREE_FRY":
		if state.size() != 2 {
			return nil, unimplementedf("THREE_FRY needs a ui64[2] state")
		}
		words = threefryBits(state.u, newState.u, rt.Shape, rt.Elem.bits() == 64)
	default:
		return nil, unimplementedf("rng algorithm %q is not supported", algo)
	}
	out := newArray(rt)
	for k, w := range words {
		if out.i != nil {
			out.i[k] = int64(w)
		} else {
			out.u[k] = w
		}
	}
	out.normalize()
	return []*array{newState, out}, nil
}

const (
	philoxW32A   = 0x9E3779B9
	philoxW32B   = 0xBB67AE85
	philoxM4x32A = 0xD2511F53
	philoxM4x32B = 0xCD9E8D57
)

func philox4x32(x [4]uint32, k0, k1 uint32) [4]uint32 {
	for round := 0; round < 10; round++ {
		hi0, lo0 := bits.Mul32(x[0], philoxM4x32A)
		hi1, lo1 := bits.Mul32(x[2], philoxM4x32B)
		x = [4]uint32{hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0}
		k0 += philoxW32A
		k1 += philoxW32B
	}
	return x
}

// philoxBits fills n values and writes the advanced counter into next.
func philoxBits(state, next []uint64, n int, wide bool) []uint64 {
	key := state[0]
	var lo, hi uint64
	if len(state) >= 3 {
		lo, hi = state[1], state[2]
	} else { // XLA reverses a two-word state: counter = (low state[1], high state[0])
		lo, hi = state[1], state[0]
	}
	draws := n
	if wide {
		draws = 2 * n
	}
	blocks := (draws + 3) / 4
	out := make([]uint64, 0, 4*blocks)
	for i := 0; i < blocks; i++ {
		clo, carry := bits.Add64(lo, uint64(i), 0)
		chi := hi + carry
		r := philox4x32([4]uint32{uint32(clo), uint32(clo >> 32), uint32(chi), uint32(chi >> 32)},
			uint32(key), uint32(key>>32))
		if wide {
			out = append(out, uint64(r[0])|uint64(r[1])<<32, uint64(r[2])|uint64(r[3])<<32)
		} else {
			out = append(out, uint64(r[0]), uint64(r[1]), uint64(r[2]), uint64(r[3]))
		}
	}
	nlo, carry := bits.Add64(lo, uint64(blocks), 0)
	next[1] = nlo
	if len(state) >= 3 {
		next[2] = hi + carry
	}
	return out[:n]
}

// threefry2x32 is Threefry-2x32 with 20 rounds: five groups of four
// rounds, the key schedule injected after each group. Unrolled, with the
// rotations as constants, it runs nearly twice as fast as a loop.
func threefry2x32(x0, x1, k0, k1 uint32) (uint32, uint32) {
	k2 := 0x1BD11BDA ^ k0 ^ k1
	x0 += k0
	x1 += k1
	x0, x1 = threefryRounds(x0, x1, 13, 15, 26, 6)
	x0, x1 = x0+k1, x1+k2+1
	x0, x1 = threefryRounds(x0, x1, 17, 29, 16, 24)
	x0, x1 = x0+k2, x1+k0+2
	x0, x1 = threefryRounds(x0, x1, 13, 15, 26, 6)
	x0, x1 = x0+k0, x1+k1+3
	x0, x1 = threefryRounds(x0, x1, 17, 29, 16, 24)
	x0, x1 = x0+k1, x1+k2+4
	x0, x1 = threefryRounds(x0, x1, 13, 15, 26, 6)
	return x0 + k2, x1 + k0 + 5
}

// threefryRounds is four rounds with the given rotations (inlined, so
// they are constants).
func threefryRounds(x0, x1 uint32, r0, r1, r2, r3 int) (uint32, uint32) {
	x0 += x1
	x1 = bits.RotateLeft32(x1, r0) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, r1) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, r2) ^ x0
	x0 += x1
	x1 = bits.RotateLeft32(x1, r3) ^ x0
	return x0, x1
}

// threefryBits follows XLA's ThreeFryBitGenerator, including the way it
// splits the shape in halves for 32-bit outputs.
func threefryBits(state, next []uint64, shape []int64, wide bool) []uint64 {
	key, counter := state[0], state[1]
	k0, k1 := uint32(key), uint32(key>>32)
	if wide {
		inputs, count := threefryCounters(counter, shape)
		next[1] = counter + uint64(count)
		out := make([]uint64, len(inputs))
		for i, c := range inputs {
			a, b := threefry2x32(uint32(c), uint32(c>>32), k0, k1)
			out[i] = uint64(a) | uint64(b)<<32
		}
		return out
	}
	// Split one dimension in halves; element 2j of it takes the first output
	// word of draw j and element 2j+1 the second.
	split := -1
	for d, s := range shape {
		if s%2 == 0 {
			split = d
			break
		}
	}
	if split < 0 {
		for d, s := range shape {
			if split < 0 || s > shape[split] {
				split = d
			}
		}
	}
	var half []int64
	if split < 0 { // scalar
		half = []int64{1}
	} else {
		half = append([]int64(nil), shape...)
		half[split] = (shape[split] + 1) / 2
	}
	inputs, count := threefryCounters(counter, half)
	next[1] = counter + uint64(count)
	if split < 0 {
		a, _ := threefry2x32(uint32(inputs[0]), uint32(inputs[0]>>32), k0, k1)
		return []uint64{uint64(a)}
	}
	hst := strides(half)
	total := 1
	for _, s := range shape {
		total *= int(s)
	}
	out := make([]uint64, 0, total)
	words := make([][2]uint32, len(inputs))
	for i, c := range inputs {
		a, b := threefry2x32(uint32(c), uint32(c>>32), k0, k1)
		words[i] = [2]uint32{a, b}
	}
	forEachIndex(shape, func(idx []int64) {
		p := 0
		for d := range idx {
			v := idx[d]
			if d == split {
				v /= 2
			}
			p += int(v) * hst[d]
		}
		out = append(out, uint64(words[p][idx[split]%2]))
	})
	return out
}

// threefryCounters returns counter + the row-major position of every
// element of shape (XLA skips size-1 dimensions when counting, which does
// not change positions) and the number of elements.
func threefryCounters(counter uint64, shape []int64) ([]uint64, int) {
	n := 1
	for _, s := range shape {
		n *= int(s)
	}
	out := make([]uint64, n)
	for i := range out {
		out[i] = counter + uint64(i)
	}
	return out, n
}
