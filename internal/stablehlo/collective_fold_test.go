package stablehlo

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAllReduceGroupOrder checks that all_reduce combines the pieces in
// group order whichever process reduces them, for a commutative body (a
// typed loop) and one that is not (subtract, through the interpreter), over
// 2 and 3 processes.
func TestAllReduceGroupOrder(t *testing.T) {
	const n = 6
	for _, c := range []struct {
		op      string
		combine func(a, b float32) float32
	}{
		{"add", func(a, b float32) float32 { return a + b }},
		{"subtract", func(a, b float32) float32 { return a - b }},
	} {
		for _, procs := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s/%d", c.op, procs), func(t *testing.T) {
				ids := make([]string, procs)
				for i := range ids {
					ids[i] = fmt.Sprint(i)
				}
				m := mustParse(t, fmt.Sprintf(`module attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%[2]dxf32>) -> tensor<%[2]dxf32> {
    %%r = "stablehlo.all_reduce"(%%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[%[3]s]]> : tensor<1x%[1]dxi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.%[4]s %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%[2]dxf32>) -> tensor<%[2]dxf32>
    return %%r : tensor<%[2]dxf32>
  }
}`, procs, n, strings.Join(ids, ", "), c.op))
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
