package stablehlo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTopK runs chlo.top_k on rows with many ties, NaN, infinities and
// signed zeros, as floats, signed and unsigned integers, with k small
// against the row (the heap) and large (the sort), and compares with a
// stable sort of each row by top_k's order.
func TestTopK(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const rows, n = 3, 64
	vals := make([]float64, rows*n)
	for i := range vals {
		vals[i] = float64(rng.IntN(9) - 4)
	}
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0}
	for i, v := range specials {
		vals[7*i+3] = v
	}
	for _, elem := range []string{"f32", "i32", "ui8"} {
		for _, k := range []int{1, 5, 40, n} {
			t.Run(fmt.Sprintf("%s/k=%d", elem, k), func(t *testing.T) {
				in := make([]float64, len(vals))
				copy(in, vals)
				lits := make([]string, len(in))
				for i, v := range in {
					switch {
					case elem == "ui8":
						if math.IsNaN(v) || math.IsInf(v, 0) {
							v = 200
						}
						in[i] = float64(uint8(int8(v)))
					case elem == "i32" && (math.IsNaN(v) || math.IsInf(v, 0)):
						in[i] = 7
					case elem == "i32":
						in[i] = float64(int64(v)) // -0 is 0
					}
					lits[i] = formatLiteral(in[i], elem)
				}
				typ := fmt.Sprintf("tensor<%dx%dx%s>", rows, n, elem)
				out := fmt.Sprintf("tensor<%dx%dx%s>", rows, k, elem)
				m := mustParse(t, fmt.Sprintf(`func.func @main() -> (%s, tensor<%dx%dxi32>) {
  %%x = stablehlo.constant dense<%s> : %s
  %%v, %%i = chlo.top_k(%%x, k = %d) : %s -> (%s, tensor<%dx%dxi32>)
  return %%v, %%i : %s, tensor<%dx%dxi32>
}`, out, rows, k, nested(lits, rows, n), typ, k, typ, out, rows, k, out, rows, k))
				res, err := runMain(t, m)
				if err != nil {
					t.Fatal(err)
				}
				got := decodeTensor(res[1]).i
				for r := range rows {
					row := in[r*n : (r+1)*n]
					want := make([]int, n)
					for j := range want {
						want[j] = j
					}
					slices.SortStableFunc(want, func(x, y int) int {
						kx, ky := totalOrderKey(row[x]), totalOrderKey(row[y])
						switch {
						case kx > ky:
							return -1
						case kx < ky:
							return 1
						}
						return 0
					})
					for j := range k {
						if int(got[r*k+j]) != want[j] {
							t.Fatalf("row %d: indices %v, want %v", r, got[r*k:(r+1)*k], want[:k])
						}
					}
				}
			})
		}
	}
}

func formatLiteral(v float64, elem string) string {
	switch {
	case elem != "f32":
		return fmt.Sprint(int64(v))
	case math.IsNaN(v):
		return "0x7FC00000"
	case math.IsInf(v, 1):
		return "0x7F800000"
	case math.IsInf(v, -1):
		return "0xFF800000"
	case v == 0 && math.Signbit(v):
		return "-0.0"
	}
	return fmt.Sprintf("%.1f", v)
}

func nested(lits []string, rows, n int) string {
	parts := make([]string, rows)
	for r := range parts {
		parts[r] = "[" + strings.Join(lits[r*n:(r+1)*n], ", ") + "]"
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
