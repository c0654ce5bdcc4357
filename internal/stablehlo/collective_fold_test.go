package stablehlo

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAllReduceGroupOrder checks that all_reduce combines the pieces in
// group order whichever process reduces them, for a commutative body (a
// typed loop) and one that is not (subtract, through the interpreter), over
// 2, 3 and 4 processes, of a parameter and of an intermediate value (which
// the first two processes reduce in place), with each reduced chunk sent
// whole and one element at a time.
func TestAllReduceGroupOrder(t *testing.T) {
	const n = 7
	defer func(piece int) { gatherPiece = piece }(gatherPiece)
	for _, c := range []struct {
		op      string
		combine func(a, b float32) float32
	}{
		{"add", func(a, b float32) float32 { return a + b }},
		{"subtract", func(a, b float32) float32 { return a - b }},
	} {
		for _, run := range []struct {
			procs   int
			operand string
			piece   int
		}{{2, "a", 1 << 20}, {3, "a", 1 << 20}, {2, "b", 1 << 20}, {3, "b", 1 << 20}, {2, "a", 4}, {2, "b", 4}, {3, "b", 4}, {4, "a", 4}, {4, "b", 4}} {
			procs := run.procs
			t.Run(fmt.Sprintf("%s/%d/%s/piece%d", c.op, procs, run.operand, run.piece), func(t *testing.T) {
				gatherPiece = run.piece
				ids := make([]string, procs)
				for i := range ids {
					ids[i] = fmt.Sprint(i)
				}
				m := mustParse(t, fmt.Sprintf(`module attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%[2]dxf32>) -> tensor<%[2]dxf32> {
    %%b = stablehlo.abs %%a : tensor<%[2]dxf32>
    %%r = "stablehlo.all_reduce"(%%%[5]s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[%[3]s]]> : tensor<1x%[1]dxi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.%[4]s %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%[2]dxf32>) -> tensor<%[2]dxf32>
    return %%r : tensor<%[2]dxf32>
  }
}`, procs, n, strings.Join(ids, ", "), c.op, run.operand))
				value := func(p, k int) float32 { return float32((p + 1) * (k + 1) * int(math.Pow10(p))) }
				args := make([][]*Tensor, procs)
				want := make([]float32, n)
				for p := range args {
					data := make([]byte, 4*n)
					for k := range n {
						binary.LittleEndian.PutUint32(data[4*k:], math.Float32bits(value(p, k)))
						if p == 0 {
							want[k] = value(p, k)
						} else {
							want[k] = c.combine(want[k], value(p, k))
						}
					}
					args[p] = []*Tensor{{Type: TensorType{Elem: F32, Shape: []int64{n}}, Data: data}}
				}
				outs, err := m.RunProcesses(context.Background(), args)
				if err != nil {
					t.Fatal(err)
				}
				for p, out := range outs {
					got := make([]float32, n)
					for k := range got {
						got[k] = math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*k:]))
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("process %d (-want +got):\n%s", p, diff)
					}
				}
			})
		}
	}
}

// TestFoldPairMatchesFold checks that the fused first step of a reduction
// (dst = op(a, b)) gives the same bits as copying a and folding b in, for
// every typed-loop op and element type, odd sizes fed in odd runs as they
// arrive off the wire, and NaNs with distinct payloads on both sides (which
// max and min tell apart by operand order).
func TestFoldPairMatchesFold(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	kinds := []binaryKind{binAdd, binMul, binMax, binMin, binAnd, binOr, binXor}
	elems := []ElemType{Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64}
	random := func(e ElemType, n int, nan uint64) *array {
		data := make([]byte, n*e.ByteSize())
		rng.Read(data)
		a := decodeTensor(&Tensor{Type: TensorType{Elem: e, Shape: []int64{int64(n)}}, Data: data})
		for k := 0; k < n; k += 3 {
			switch e.class() {
			case classF32:
				a.f32[k] = math.Float32frombits(0x7fc00000 | uint32(nan+uint64(k)))
			case classF64:
				a.f64[k] = math.Float64frombits(0x7ff8000000000000 | (nan + uint64(k)))
			}
		}
		a.normalize()
		return a
	}
	for _, e := range elems {
		for _, kind := range kinds {
			for _, n := range []int{1, 7, 33} {
				f := &folder{kind: kind, simple: true}
				a, b := random(e, n, 1<<10), random(e, n, 1<<20)
				want := random(e, n, 0)
				copyRange(want, 0, a)
				if err := f.fold(want, 0, b); err != nil {
					t.Fatal(err)
				}
				got := random(e, n, 0) // garbage where an element is missed
				for at := 0; at < n; at += 5 {
					hi := min(at+5, n)
					if err := f.pair(got, at, flat(a, at, hi), flat(b, at, hi)); err != nil {
						t.Fatal(err)
					}
				}
				if g, w := allBytes(got), allBytes(want); string(g) != string(w) {
					t.Errorf("%s kind %d n=%d: fused %x, unfused %x", e, kind, n, g, w)
				}
			}
		}
	}
}
