package stablehlo

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// TestCallLinalg runs LAPACK targets through CallLinalg and checks that they
// give what the same custom_call gives inside a program, attributes
// included, and that it refuses what it cannot run.
func TestCallLinalg(t *testing.T) {
	a := literal(t, "tensor<3x3xf32>", "[[4.0, 2.0, 0.5], [2.0, 3.0, 1.0], [0.5, 1.0, 5.0]]")
	for _, tc := range []struct {
		target, config, results string
		n                       int
		attrs                   map[string]int64
	}{
		{"lapack_sgetrf_ffi", "", "tensor<3x3xf32>, tensor<3xi32>, tensor<i32>", 3, nil},
		{"lapack_spotrf_ffi", "uplo = 85 : ui8", "tensor<3x3xf32>, tensor<i32>", 2, map[string]int64{"uplo": 'U'}},
		{"lapack_ssyevd_ffi", "mode = 86 : ui8, uplo = 76 : ui8", "tensor<3x3xf32>, tensor<3xf32>, tensor<i32>", 3, map[string]int64{"mode": 'V', "uplo": 'L'}},
	} {
		t.Run(tc.target, func(t *testing.T) {
			m := mustParse(t, `func.func @main(%a: tensor<3x3xf32>) -> (`+tc.results+`) {
  %r:`+fmt.Sprint(tc.n)+` = stablehlo.custom_call @`+tc.target+`(%a) {backend_config = "", mhlo.backend_config = {`+tc.config+`}} : (tensor<3x3xf32>) -> (`+tc.results+`)
  return `+resultList(tc.n)+` : `+tc.results+`
}`)
			want, err := runMain(t, m, a)
			if err != nil {
				t.Fatal(err)
			}
			var types []TensorType
			for _, r := range m.Main().Results() {
				types = append(types, r.Type)
			}
			got, err := CallLinalg(context.Background(), tc.target, tc.attrs, []*Tensor{a}, types)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if !got[i].Type.Equal(want[i].Type) || !bytes.Equal(got[i].Data, want[i].Data) {
					t.Errorf("result %d: CallLinalg gives %v, the program %v", i, got[i], want[i])
				}
			}
		})
	}
	if _, err := CallLinalg(context.Background(), "lapack_sgelsd_ffi", nil, []*Tensor{a}, nil); errorCode(err) != Unimplemented {
		t.Errorf("gelsd (no JAX function calls it): %v, want UNIMPLEMENTED", err)
	}
	short := &Tensor{Type: a.Type, Data: a.Data[:8]}
	if _, err := CallLinalg(context.Background(), "lapack_sgetrf_ffi", nil, []*Tensor{short}, nil); errorCode(err) != InvalidArgument {
		t.Errorf("a short operand: %v, want INVALID_ARGUMENT", err)
	}
}

// TestCallLinalgBooleanOptions: a PJRT plugin's FFI call hands ormqr's
// boolean options over as integers; CallLinalg with left = 0 and
// transpose = 1 gives what the custom_call with left = false, transpose =
// true gives in a program (c·Qᵀ), not the defaults' Q·c.
func TestCallLinalgBooleanOptions(t *testing.T) {
	a := literal(t, "tensor<3x2xf32>", "[[1.0, 0.0], [0.5, 1.0], [0.25, 0.5]]")
	tau := literal(t, "tensor<2xf32>", "[1.2, 0.7]")
	c := literal(t, "tensor<3x3xf32>", "[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.5]]")
	m := mustParse(t, `func.func @main(%a: tensor<3x2xf32>, %t: tensor<2xf32>, %c: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %r = stablehlo.custom_call @lapack_sormqr_ffi(%a, %t, %c) {mhlo.backend_config = {left = false, transpose = true}} : (tensor<3x2xf32>, tensor<2xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}`)
	want, err := m.Run(context.Background(), []*Tensor{a, tau, c})
	if err != nil {
		t.Fatal(err)
	}
	got, err := CallLinalg(context.Background(), "lapack_sormqr_ffi", map[string]int64{"left": 0, "transpose": 1}, []*Tensor{a, tau, c}, []TensorType{c.Type})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[0].Data, want[0].Data) {
		t.Errorf("CallLinalg with integer options gives %v, the program %v", got[0], want[0])
	}
	defaults, err := CallLinalg(context.Background(), "lapack_sormqr_ffi", nil, []*Tensor{a, tau, c}, []TensorType{c.Type})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(defaults[0].Data, want[0].Data) {
		t.Error("the defaults (Q·c) give c·Qᵀ too: the test cannot tell the options apart")
	}
}
