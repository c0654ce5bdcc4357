package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestConvolutionAsMatmulMatchesReference runs convolutions over small
// integers twice: as float32, through the matrix-product path, and as i64,
// through the reference loop. The integer sums are exact in float32, so the
// two must agree exactly, across layouts, strides, padding, dilations,
// window reversal, feature groups and windows longer than dotBlock.
func TestConvolutionAsMatmulMatchesReference(t *testing.T) {
	cases := []struct {
		name                   string
		dims                   string
		lhs, kernel            []int64
		stride, lhsDil, rhsDil []int64
		pad                    [][2]int64
		reverse                []bool
		groups                 int64
		out                    func(spatial []int64, batch, feature int64) []int64
	}{
		{"nhwc_strided_padded", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", []int64{2, 5, 6, 3}, []int64{3, 2, 3, 4},
			[]int64{1, 2}, []int64{1, 1}, []int64{1, 1}, [][2]int64{{1, 1}, {0, 1}}, []bool{false, false}, 1,
			func(s []int64, b, f int64) []int64 { return []int64{b, s[0], s[1], f} }},
		{"nchw_dilated_reversed_grouped", "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]", []int64{2, 4, 5, 5}, []int64{6, 2, 3, 3},
			[]int64{2, 1}, []int64{2, 1}, []int64{1, 2}, [][2]int64{{2, 0}, {1, 2}}, []bool{true, false}, 2,
			func(s []int64, b, f int64) []int64 { return []int64{b, f, s[0], s[1]} }},
		{"depthwise", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", []int64{1, 4, 4, 3}, []int64{3, 3, 1, 6},
			[]int64{1, 1}, []int64{1, 1}, []int64{1, 1}, [][2]int64{{1, 1}, {1, 1}}, []bool{false, false}, 3,
			func(s []int64, b, f int64) []int64 { return []int64{b, s[0], s[1], f} }},
		{"one_d_reversed", "[b, 0, f]x[0, i, o]->[b, 0, f]", []int64{3, 9, 2}, []int64{4, 2, 5},
			[]int64{3}, []int64{1}, []int64{2}, [][2]int64{{3, 3}}, []bool{true}, 1,
			func(s []int64, b, f int64) []int64 { return []int64{b, s[0], f} }},
		{"output_transposed", "[b, 0, 1, f]x[0, 1, i, o]->[f, b, 1, 0]", []int64{2, 3, 4, 2}, []int64{2, 2, 2, 3},
			[]int64{1, 1}, []int64{1, 1}, []int64{1, 1}, [][2]int64{{0, 0}, {1, 0}}, []bool{false, false}, 1,
			func(s []int64, b, f int64) []int64 { return []int64{f, b, s[1], s[0]} }},
		{"window_longer_than_dot_block", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", []int64{1, 6, 6, 8}, []int64{3, 3, 8, 2},
			[]int64{1, 1}, []int64{1, 1}, []int64{1, 1}, [][2]int64{{1, 1}, {1, 1}}, []bool{false, false}, 1,
			func(s []int64, b, f int64) []int64 { return []int64{b, s[0], s[1], f} }},
	}
	ints := func(v []int64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	tensor := func(shape []int64, elem string) string {
		s := "tensor<"
		for _, n := range shape {
			s += fmt.Sprint(n) + "x"
		}
		return s + elem + ">"
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := parseConvDims(c.dims)
			if err != nil {
				t.Fatal(err)
			}
			spatial := make([]int64, len(d.inSpatial))
			var pads []string
			var rev []string
			for i := range spatial {
				in := (c.lhs[d.inSpatial[i]]-1)*c.lhsDil[i] + 1 + c.pad[i][0] + c.pad[i][1]
				k := (c.kernel[d.kSpatial[i]]-1)*c.rhsDil[i] + 1
				spatial[i] = (in-k)/c.stride[i] + 1
				pads = append(pads, ints(c.pad[i][:]))
				rev = append(rev, fmt.Sprint(c.reverse[i]))
			}
			out := c.out(spatial, c.lhs[d.inBatch], c.kernel[d.kOut])
			run := func(elem string) []float64 {
				src := fmt.Sprintf(`func.func @main(%%a: %s, %%k: %s) -> %s {
  %%r = stablehlo.convolution(%%a, %%k) dim_numbers = %s, window = {stride = %s, pad = [%s], lhs_dilate = %s, rhs_dilate = %s, reverse = [%s]} {batch_group_count = 1 : i64, feature_group_count = %d : i64} : (%s, %s) -> %s
  return %%r : %s
}`, tensor(c.lhs, elem), tensor(c.kernel, elem), tensor(out, elem), c.dims, ints(c.stride), strings.Join(pads, ", "),
					ints(c.lhsDil), ints(c.rhsDil), strings.Join(rev, ", "), c.groups, tensor(c.lhs, elem), tensor(c.kernel, elem), tensor(out, elem), tensor(out, elem))
				m := mustParse(t, src)
				args := make([]*Tensor, 2)
				for j, shape := range [][]int64{c.lhs, c.kernel} {
					n := TensorType{Shape: shape}.NumElements()
					data := make([]byte, 0, 8*n)
					for i := range n {
						v := (i*int64(7+2*j))%11 - 5
						if elem == "f32" {
							data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(v)))
						} else {
							data = binary.LittleEndian.AppendUint64(data, uint64(v))
						}
					}
					typ := TensorType{Elem: I64, Shape: shape}
					if elem == "f32" {
						typ.Elem = F32
					}
					if args[j], err = NewTensor(typ, data); err != nil {
						t.Fatal(err)
					}
				}
				res, err := runMain(t, m, args...)
				if err != nil {
					t.Fatalf("%s: %v\n%s", elem, err, src)
				}
				var vals []float64
				for i := 0; i < len(res[0].Data); i += res[0].Type.Elem.ByteSize() {
					if elem == "f32" {
						vals = append(vals, float64(math.Float32frombits(binary.LittleEndian.Uint32(res[0].Data[i:]))))
					} else {
						vals = append(vals, float64(int64(binary.LittleEndian.Uint64(res[0].Data[i:]))))
					}
				}
				return vals
			}
			got, want := run("f32"), run("i64")
			if len(got) != len(want) {
				t.Fatalf("%d outputs, want %d", len(got), len(want))
			}
			nonzero := 0
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("output %d: float32 path %v, reference %v", i, got[i], want[i])
				}
				if want[i] != 0 {
					nonzero++
				}
			}
			if nonzero == 0 {
				t.Fatal("every output is zero: the case checks nothing")
			}
		})
	}
}
