package stablehlo

import (
	"fmt"
	"strings"
	"testing"
)

// TestFusionMatchesUnfused runs elementwise chains twice: as written (fused
// into tiles) and with a reshape after every op, which prevents fusion and
// buffer reuse patterns from lining up. Results must be bit-identical.
func TestFusionMatchesUnfused(t *testing.T) {
	const n = fusionMinElements + 2*fusionTile + 17 // several tiles and a ragged end
	for _, elem := range []string{"f32", "bf16", "f16", "f64"} {
		t.Run(elem, func(t *testing.T) {
			typ := fmt.Sprintf("tensor<%dx%s>", n, elem)
			steps := []string{
				"%0 = stablehlo.multiply %x, %y",
				"%1 = stablehlo.add %0, %x",
				"%2 = stablehlo.tanh %1",
				"%3 = stablehlo.subtract %2, %0", // %0 read again: must be materialized
				"%4 = stablehlo.exponential %3",
				"%5 = stablehlo.divide %4, %y",
				"%6 = stablehlo.maximum %5, %1",
			}
			program := func(split bool) string {
				var b strings.Builder
				fmt.Fprintf(&b, "func.func @main(%%x: %s, %%y: %s) -> (%s, %s) {\n", typ, typ, typ, typ)
				for _, s := range steps {
					name := strings.Fields(s)[0]
					if split {
						s = strings.Replace(s, name, name+"_", 1)
					}
					fmt.Fprintf(&b, "  %s : %s\n", s, typ)
					if split {
						fmt.Fprintf(&b, "  %s = stablehlo.reshape %s_ : (%s) -> %s\n", name, name, typ, typ)
					}
				}
				fmt.Fprintf(&b, "  return %%6, %%2 : %s, %s\n}\n", typ, typ)
				return b.String()
			}
			fused := mustParse(t, program(false))
			if !hasFusedOp(fused) {
				t.Fatal("chain was not fused")
			}
			plain := mustParse(t, program(true))
			if hasFusedOp(plain) {
				t.Fatal("split chain was fused")
			}
			e, _ := ParseElemType(elem)
			x := &Tensor{Type: TensorType{Elem: e, Shape: []int64{n}}, Data: make([]byte, n*e.ByteSize())}
			y := &Tensor{Type: x.Type, Data: make([]byte, len(x.Data))}
			for i := range x.Data {
				x.Data[i] = byte(i*7 + 3)
				y.Data[i] = byte(i*13 + 5)
			}
			if e == F32 || e == F64 || e == BF16 || e == F16 { // keep exponents moderate
				for i := e.ByteSize() - 1; i < len(x.Data); i += e.ByteSize() {
					x.Data[i] = 0x3f
					y.Data[i] = 0x3f
				}
			}
			a, err := runMain(t, fused, x, y)
			if err != nil {
				t.Fatal(err)
			}
			b, err := runMain(t, plain, x, y)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a {
				if string(a[i].Data) != string(b[i].Data) {
					t.Errorf("result %d differs between fused and unfused evaluation", i)
				}
			}
		})
	}
}

func hasFusedOp(m *Module) bool {
	for _, op := range m.Main().body.ops {
		if op.fused != nil {
			return true
		}
	}
	return false
}
