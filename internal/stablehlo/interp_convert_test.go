package stablehlo

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBitcastWordsKeepsBits bitcasts random bit patterns (NaN payloads,
// negative integers, subnormals among them) between types of one width
// and checks that the bytes are unchanged, the definition of a bitcast.
func TestBitcastWordsKeepsBits(t *testing.T) {
	pairs := [][2]ElemType{
		{F32, I32}, {I32, F32}, {F32, U32}, {U32, F32}, {I32, U32}, {U32, I32},
		{F64, I64}, {I64, F64}, {F64, U64}, {U64, F64}, {I64, U64}, {U64, I64},
		{I16, U16}, {U16, I16}, {I8, U8}, {U8, I8},
	}
	r := rand.New(rand.NewPCG(2, 7))
	for _, p := range pairs {
		from, to := TensorType{Elem: p[0], Shape: []int64{64}}, TensorType{Elem: p[1], Shape: []int64{64}}
		raw := make([]byte, 64*p[0].ByteSize())
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		raw[len(raw)-1] = 0xff // a NaN or a negative number at the end
		out, ok := bitcastWords(decodeTensor(&Tensor{Type: from, Data: raw}), to)
		if !ok {
			t.Fatalf("%s -> %s: not a word bitcast", p[0], p[1])
		}
		if got := encodeArray(out).Data; !bytes.Equal(got, raw) {
			t.Errorf("%s -> %s changed the bits:\n got %x\nwant %x", p[0], p[1], got, raw)
		}
		// Integers are held sign-extended or zero-extended to 64 bits, as
		// decoding holds them, or later ops see other values.
		want := decodeTensor(&Tensor{Type: to, Data: raw})
		if !cmp.Equal(out.i, want.i) || !cmp.Equal(out.u, want.u) {
			t.Errorf("%s -> %s: held as %v %v, decoding holds %v %v", p[0], p[1], out.i, out.u, want.i, want.u)
		}
	}
	if _, ok := bitcastWords(newArray(TensorType{Elem: F16, Shape: []int64{2}}), TensorType{Elem: I16, Shape: []int64{2}}); ok {
		t.Error("an f16 bitcast took the word path, which holds f16 as f32")
	}
}
