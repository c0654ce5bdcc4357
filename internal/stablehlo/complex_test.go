package stablehlo

import (
	"strings"
	"testing"

	"github.com/openpathways/pathways/internal/golden"
)

// TestComplexTypes reads a JAX program with complex values
// (testdata/bytecode/complex.*) as text and as bytecode: both name
// complex<f32> and complex<f64> as C64 and C128 and print them as MLIR does,
// and the interpreter refuses the program as Unimplemented, naming the type.
func TestComplexTypes(t *testing.T) {
	wantParams := []string{"tensor<3x4xf32>", "tensor<3x4xcomplex<f32>>", "tensor<2xcomplex<f64>>"}
	wantResults := []string{"tensor<3x4xcomplex<f32>>", "tensor<3x4xf32>", "tensor<3x3xcomplex<f32>>",
		"tensor<4xcomplex<f32>>", "tensor<2xcomplex<f64>>"}
	check := func(t *testing.T, what string, vs []Value, want []string) {
		t.Helper()
		if len(vs) != len(want) {
			t.Fatalf("%d %s, want %d", len(vs), what, len(want))
		}
		for i, v := range vs {
			elem := F32
			if strings.Contains(want[i], "complex<f32>") {
				elem = C64
			} else if strings.Contains(want[i], "complex<f64>") {
				elem = C128
			}
			if got := v.Type.String(); got != want[i] || v.Type.Elem != elem {
				t.Errorf("%s %d: %s (element %v), want %s (%v)", what, i, got, v.Type.Elem, want[i], elem)
			}
		}
	}
	for _, form := range []string{"mlir", "mlirbc"} {
		t.Run(form, func(t *testing.T) {
			m, err := Parse(golden.ReadFile(t, "testdata/bytecode/complex."+form))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			check(t, "parameter", m.Main().Params(), wantParams)
			check(t, "result", m.Main().Results(), wantResults)
			if err := m.Unsupported(); errorCode(err) != Unimplemented ||
				!strings.Contains(err.Error(), "type tensor<3x4xcomplex<f32>>, which is not supported") {
				t.Errorf("Unsupported() = %v, want Unimplemented naming tensor<3x4xcomplex<f32>>", err)
			}
			if _, err := runMain(t, m); errorCode(err) != Unimplemented {
				t.Errorf("Run error = %v, want Unimplemented", err)
			}
		})
	}
}

// TestComplexElemTypes checks the spelling and size of C64 and C128, that
// tensors of them are refused as the interpreter's operands, and that a
// complex type with no ElemType keeps its spelling.
func TestComplexElemTypes(t *testing.T) {
	for _, c := range []struct {
		e    ElemType
		name string
		size int
	}{{C64, "complex<f32>", 8}, {C128, "complex<f64>", 16}} {
		if got, ok := ParseElemType(c.name); !ok || got != c.e {
			t.Errorf("ParseElemType(%q) = %v, %v, want %v", c.name, got, ok, c.e)
		}
		if c.e.String() != c.name || c.e.ByteSize() != c.size {
			t.Errorf("%v: String() = %q, ByteSize() = %d, want %q, %d", c.e, c.e.String(), c.e.ByteSize(), c.name, c.size)
		}
		typ := TensorType{Elem: c.e, Shape: []int64{2}}
		if _, err := NewTensor(typ, make([]byte, 2*c.size)); errorCode(err) != Unimplemented || !strings.Contains(err.Error(), c.name) {
			t.Errorf("NewTensor(%v) error = %v, want Unimplemented naming %s", typ, err, c.name)
		}
	}
	m := mustParse(t, `func.func @main(%a: complex<f64>, %b: tensor<2xcomplex<f16>>) -> complex<f64> {
  return %a : complex<f64>
}`)
	a, b := m.Main().Params()[0].Type, m.Main().Params()[1].Type
	if a.Elem != C128 || a.String() != "tensor<complex<f64>>" {
		t.Errorf("complex<f64> parses to %v (element %v), want tensor<complex<f64>> (C128)", a, a.Elem)
	}
	if b.Elem != ElemInvalid || b.String() != "tensor<2xcomplex<f16>>" {
		t.Errorf("tensor<2xcomplex<f16>> parses to %v (element %v), want its spelling (ElemInvalid)", b, b.Elem)
	}
}
