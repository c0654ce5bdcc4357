package ifrtconv_test

import (
	"os"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/ifrtconv"
)

// TestDType maps every element type the reader names, complex included, and
// the parameters and results of a JAX program with complex values, as text
// and as bytecode.
func TestDType(t *testing.T) {
	for e, want := range map[stablehlo.ElemType]ifrt.DType{
		stablehlo.Bool: ifrt.PRED, stablehlo.I8: ifrt.S8, stablehlo.I16: ifrt.S16, stablehlo.I32: ifrt.S32,
		stablehlo.I64: ifrt.S64, stablehlo.U8: ifrt.U8, stablehlo.U16: ifrt.U16, stablehlo.U32: ifrt.U32,
		stablehlo.U64: ifrt.U64, stablehlo.F16: ifrt.F16, stablehlo.BF16: ifrt.BF16, stablehlo.F32: ifrt.F32,
		stablehlo.F64: ifrt.F64, stablehlo.C64: ifrt.C64, stablehlo.C128: ifrt.C128,
		stablehlo.I2: ifrt.S2, stablehlo.I4: ifrt.S4, stablehlo.U2: ifrt.U2, stablehlo.U4: ifrt.U4,
	} {
		if got, ok := ifrtconv.DType(e); !ok || got != want {
			t.Errorf("DType(%v) = %v, %v, want %v", e, got, ok, want)
		}
		if back, ok := ifrtconv.ElemType(want); !ok || back != e {
			t.Errorf("ElemType(%v) = %v, %v, want %v", want, back, ok, e)
		}
	}
	if e, ok := ifrtconv.ElemType(ifrt.STRING); ok {
		t.Errorf("ElemType(STRING) = %v, want none", e)
	}
	if d, ok := ifrtconv.DType(stablehlo.ElemInvalid); ok {
		t.Errorf("DType(ElemInvalid) = %v, want none", d)
	}

	wantParams := []ifrt.DType{ifrt.F32, ifrt.C64, ifrt.C128}
	wantResults := []ifrt.DType{ifrt.C64, ifrt.F32, ifrt.C64, ifrt.C64, ifrt.C128}
	for _, form := range []string{"mlir", "mlirbc"} {
		src, err := os.ReadFile("../testdata/bytecode/complex." + form)
		if err != nil {
			t.Fatal(err)
		}
		m, err := stablehlo.Parse(src)
		if err != nil {
			t.Fatalf("%s: Parse: %v", form, err)
		}
		for _, c := range []struct {
			what   string
			values []stablehlo.Value
			want   []ifrt.DType
		}{{"parameter", m.Main().Params(), wantParams}, {"result", m.Main().Results(), wantResults}} {
			if len(c.values) != len(c.want) {
				t.Fatalf("%s: %d %ss, want %d", form, len(c.values), c.what, len(c.want))
			}
			for i, v := range c.values {
				if got, ok := ifrtconv.DType(v.Type.Elem); !ok || got != c.want[i] {
					t.Errorf("%s: %s %d (%v): DType = %v, %v, want %v", form, c.what, i, v.Type, got, ok, c.want[i])
				}
			}
		}
	}
}
