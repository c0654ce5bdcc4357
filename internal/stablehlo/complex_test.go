package stablehlo

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/openpathways/pathways/internal/golden"
)

// complexTensor encodes values as a tensor of type e (C64 or C128).
func complexTensor(e ElemType, shape []int64, values []complex128) *Tensor {
	a := newArray(TensorType{Elem: e, Shape: shape})
	copy(a.c, values)
	return encodeArray(a)
}

// TestComplexProgram runs a JAX program with complex values
// (testdata/bytecode/complex.*, as text and as bytecode): a real-to-complex
// convert and product, abs, a product with the conjugate transpose, an FFT
// and complex<f64> arithmetic, on integer-valued data, so every result is
// exact and computed here by plain loops.
func TestComplexProgram(t *testing.T) {
	x := make([]float64, 12)
	z := make([]complex128, 12)
	triples := []complex128{3 + 4i, -5 + 12i, 8 - 6i, -7 - 24i}
	for k := range x {
		x[k] = float64(k%5 - 2)
		z[k] = triples[k%4] * complex(float64(k/4+1), 0)
	}
	w := []complex128{1 + 2i, -3 + 0.5i}
	xa := newArray(TensorType{Elem: F32, Shape: []int64{3, 4}})
	for k, v := range x {
		xa.f32[k] = float32(v)
	}
	args := []*Tensor{encodeArray(xa), complexTensor(C64, []int64{3, 4}, z), complexTensor(C128, []int64{2}, w)}

	product, magnitude := make([]complex128, 12), make([]float64, 12)
	for k := range z {
		product[k] = complex(x[k], 0) * z[k]
		magnitude[k] = math.Hypot(real(z[k]), imag(z[k]))
	}
	gram := make([]complex128, 9)
	for i := range 3 {
		for j := range 3 {
			for k := range 4 {
				gram[3*i+j] += z[4*i+k] * complex(real(z[4*j+k]), -imag(z[4*j+k]))
			}
		}
	}
	spectrum := make([]complex128, 4)
	for k := range 4 {
		for j := range 4 {
			spectrum[k] += complex(x[j], 0) * []complex128{1, -1i, -1, 1i}[j*k%4]
		}
	}
	square := []complex128{w[0] * w[0], w[1] * w[1]}
	mag := newArray(TensorType{Elem: F32, Shape: []int64{3, 4}})
	for k, v := range magnitude {
		mag.f32[k] = float32(v)
	}
	want := []*Tensor{complexTensor(C64, []int64{3, 4}, product), encodeArray(mag), complexTensor(C64, []int64{3, 3}, gram),
		complexTensor(C64, []int64{4}, spectrum), complexTensor(C128, []int64{2}, square)}

	for _, form := range []string{"mlir", "mlirbc"} {
		t.Run(form, func(t *testing.T) {
			m, err := Parse(golden.ReadFile(t, "testdata/bytecode/complex."+form))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if err := m.Unsupported(); err != nil {
				t.Fatalf("Unsupported() = %v", err)
			}
			got, err := runMain(t, m, args...)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for i := range want {
				if msg := compareTensors(got[i], want[i], 0, 0); msg != "" {
					t.Errorf("result %d: %s", i, msg)
				}
			}
		})
	}
}

// TestComplexElemTypes checks the spelling and size of C64 and C128 and
// their tensors' encoding (real part, then imaginary, little-endian), and
// that a complex type with no ElemType keeps its spelling.
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
		if _, err := NewTensor(typ, make([]byte, 2*c.size-1)); errorCode(err) != InvalidArgument {
			t.Errorf("NewTensor(%v) of %d bytes: error %v, want InvalidArgument", typ, 2*c.size-1, err)
		}
		data := complexTensor(c.e, []int64{2}, []complex128{1.5 - 2i, 0}).Data
		part := func(k int) float64 {
			if c.e == C64 {
				return float64(math.Float32frombits(binary.LittleEndian.Uint32(data[4*k:])))
			}
			return math.Float64frombits(binary.LittleEndian.Uint64(data[8*k:]))
		}
		if part(0) != 1.5 || part(1) != -2 || part(2) != 0 || part(3) != 0 {
			t.Errorf("%v encodes 1.5-2i, 0 as parts %v %v %v %v", c.e, part(0), part(1), part(2), part(3))
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

// TestComplexOps runs the elementwise ops, reductions and conversions on
// complex values, against values worked out by hand or to the precision
// the op promises.
func TestComplexOps(t *testing.T) {
	c2 := "tensor<2xcomplex<f32>>"
	d2 := "tensor<2xcomplex<f64>>"
	ab := cst("a", c2, "[(1.0, 2.0), (3.0, -4.0)]") + cst("b", c2, "[(0.5, -1.0), (2.0, 0.0)]")
	runOpCases(t, []opCase{
		{"constant_splat", cst("r", c2, "(1.5, -2.5)"), c2, "[(1.5, -2.5), (1.5, -2.5)]"},
		{"add", ab + "  %r = stablehlo.add %a, %b : " + c2, c2, "[(1.5, 1.0), (5.0, -4.0)]"},
		{"subtract", ab + "  %r = stablehlo.subtract %a, %b : " + c2, c2, "[(0.5, 3.0), (1.0, -4.0)]"},
		{"multiply", ab + "  %r = stablehlo.multiply %a, %b : " + c2, c2, "[(2.5, 0.0), (6.0, -8.0)]"},
		{"divide", ab + "  %r = stablehlo.divide %a, %b : " + c2, c2, "[(-1.2, 1.6), (1.5, -2.0)]"},
		{"power", ab + "  %r = stablehlo.power %a, %a : " + c2, c2,
			"[(-0.2225171568, 0.1007091311), (-2.9979906, -0.62378459)]"},
		{"negate", ab + "  %r = stablehlo.negate %a : " + c2, c2, "[(-1.0, -2.0), (-3.0, 4.0)]"},
		{"abs", ab + "  %r = stablehlo.abs %a : (" + c2 + ") -> tensor<2xf32>", "tensor<2xf32>", "[2.2360680, 5.0]"},
		{"sign", ab + "  %r = stablehlo.sign %a : " + c2, c2, "[(0.4472136, 0.8944272), (0.6, -0.8)]"},
		{"exponential", ab + "  %r = stablehlo.exponential %a : " + c2, c2,
			"[(-1.1312044, 2.4717267), (-13.1287831, 15.2007844)]"},
		{"log", ab + "  %r = stablehlo.log %a : " + c2, c2, "[(0.8047190, 1.1071487), (1.6094379, -0.9272952)]"},
		{"sqrt", ab + "  %r = stablehlo.sqrt %a : " + c2, c2, "[(1.2720196, 0.7861514), (2.0, -1.0)]"},
		{"real", ab + "  %r = stablehlo.real %a : (" + c2 + ") -> tensor<2xf32>", "tensor<2xf32>", "[1.0, 3.0]"},
		{"imag", ab + "  %r = stablehlo.imag %a : (" + c2 + ") -> tensor<2xf32>", "tensor<2xf32>", "[2.0, -4.0]"},
		{"imag_of_real", cst("x", "tensor<2xf32>", "[1.0, 2.0]") + "  %r = stablehlo.imag %x : (tensor<2xf32>) -> tensor<2xf32>",
			"tensor<2xf32>", "[0.0, 0.0]"},
		{"complex", cst("x", "tensor<2xf64>", "[1.0, 2.0]") + cst("y", "tensor<2xf64>", "[-3.0, 4.0]") +
			"  %r = stablehlo.complex %x, %y : tensor<2xcomplex<f64>>", d2, "[(1.0, -3.0), (2.0, 4.0)]"},
		{"compare_eq", ab + cst("c", c2, "[(1.0, 2.0), (3.0, 4.0)]") +
			"  %r = stablehlo.compare EQ, %a, %c : (" + c2 + ", " + c2 + ") -> tensor<2xi1>", "tensor<2xi1>", "[true, false]"},
		{"compare_ne", ab + cst("c", c2, "[(1.0, 2.0), (3.0, 4.0)]") +
			"  %r = stablehlo.compare NE, %a, %c : (" + c2 + ", " + c2 + ") -> tensor<2xi1>", "tensor<2xi1>", "[false, true]"},
		{"convert_to_real", ab + "  %r = stablehlo.convert %a : (" + c2 + ") -> tensor<2xi32>", "tensor<2xi32>", "[1, 3]"},
		{"convert_to_bool", cst("a", c2, "[(0.0, 2.0), (0.0, 0.0)]") + "  %r = stablehlo.convert %a : (" + c2 + ") -> tensor<2xi1>",
			"tensor<2xi1>", "[true, false]"},
		{"convert_from_real", cst("x", "tensor<2xi32>", "[7, -1]") + "  %r = stablehlo.convert %x : (tensor<2xi32>) -> " + d2,
			d2, "[(7.0, 0.0), (-1.0, 0.0)]"},
		{"convert_widen", ab + "  %r = stablehlo.convert %a : (" + c2 + ") -> " + d2, d2, "[(1.0, 2.0), (3.0, -4.0)]"},
		// complex<f32> results are rounded to float32 parts: 2^20 + 2^-10
		// is 2^20, so subtracting 2^20 leaves exactly 0.
		{"complex64_rounds", cst("a", c2, "[(1048576.0, 1048576.0), (1048576.0, 1048576.0)]") + cst("e", c2, "[(0.0009765625, 0.0), (0.0, 0.0009765625)]") +
			"  %s = stablehlo.add %a, %e : " + c2 + "\n  %r = stablehlo.subtract %s, %a : " + c2, c2, "[(0.0, 0.0), (0.0, 0.0)]"},
		{"reduce_add", ab + cst("z", "tensor<complex<f32>>", "(0.0, 0.0)") + `  %r = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>`,
			"tensor<complex<f32>>", "(4.0, -2.0)"},
		{"reduce_multiply", ab + cst("o", "tensor<complex<f32>>", "(1.0, 0.0)") + `  %r = stablehlo.reduce(%a init: %o) applies stablehlo.multiply across dimensions = [0] : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>`,
			"tensor<complex<f32>>", "(11.0, 2.0)"},
		{"dot", ab + "  %r = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (" + c2 + ", " + c2 + ") -> tensor<complex<f32>>",
			"tensor<complex<f32>>", "(8.5, -8.0)"},
	})
}

// TestComplexSmallArguments checks that exp(z)-1 and log(1+z) keep the
// precision of a small z, which computing exp(z) or 1+z first would lose
// (cos(1e-9) - 1 is 0 in float64; the answer is -5e-19).
func TestComplexSmallArguments(t *testing.T) {
	d2 := "tensor<2xcomplex<f64>>"
	a := cst("a", d2, "[(1.0e-10, 1.0e-10), (0.0, 1.0e-9)]")
	for _, c := range []struct{ op, want string }{
		{"exponential_minus_one", "[(1.0e-10, 1.00000000010e-10), (-5.0e-19, 1.0e-9)]"},
		{"log_plus_one", "[(1.0e-10, 9.9999999990e-11), (5.0e-19, 1.0e-9)]"},
	} {
		t.Run(c.op, func(t *testing.T) {
			m := mustParse(t, "func.func @main() -> "+d2+" {\n"+a+"  %r = stablehlo."+c.op+" %a : "+d2+"\n  return %r : "+d2+"\n}")
			got, err := runMain(t, m)
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareTensors(got[0], literal(t, d2, c.want), 1e-9, 0); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestComplexOpsRefused checks that ops complex numbers do not have fail
// as invalid programs.
func TestComplexOpsRefused(t *testing.T) {
	c2 := "tensor<2xcomplex<f32>>"
	a := cst("a", c2, "[(1.0, 2.0), (3.0, -4.0)]")
	for _, c := range []struct{ name, body, typ string }{
		{"maximum", a + "  %r = stablehlo.maximum %a, %a : " + c2, c2},
		{"floor", a + "  %r = stablehlo.floor %a : " + c2, c2},
		{"compare_lt", a + "  %r = stablehlo.compare LT, %a, %a : (" + c2 + ", " + c2 + ") -> tensor<2xi1>", "tensor<2xi1>"},
		{"abs_to_complex", a + "  %r = stablehlo.abs %a : " + c2, c2},
		{"reduce_maximum", a + cst("z", "tensor<complex<f32>>", "(0.0, 0.0)") + `  %r = stablehlo.reduce(%a init: %z) applies stablehlo.maximum across dimensions = [0] : (tensor<2xcomplex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>`,
			"tensor<complex<f32>>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, "func.func @main() -> "+c.typ+" {\n"+c.body+"\n  return %r : "+c.typ+"\n}")
			if _, err := runMain(t, m); errorCode(err) != InvalidArgument {
				t.Errorf("Run error = %v, want InvalidArgument", err)
			}
		})
	}
}

// TestRFFTProgram runs JAX's jnp.fft.rfft(x).real as exported
// (testdata/bytecode/rfft.mlirbc) against the DFT's defining sum.
func TestRFFTProgram(t *testing.T) {
	m, err := Parse(golden.ReadFile(t, "testdata/bytecode/rfft.mlirbc"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	x := newArray(TensorType{Elem: F32, Shape: []int64{8}})
	signal := make([]complex128, 8)
	for k := range signal {
		x.f32[k] = float32(k*k%7) - 2
		signal[k] = complex(float64(x.f32[k]), 0)
	}
	got, err := runMain(t, m, encodeArray(x))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := newArray(TensorType{Elem: F32, Shape: []int64{5}})
	for k, z := range directDFT(signal, []int64{8}, 1, -1)[:5] {
		want.f32[k] = float32(real(z))
	}
	if msg := compareTensors(got[0], encodeArray(want), 1e-6, 1e-5); msg != "" {
		t.Error(msg)
	}
}
