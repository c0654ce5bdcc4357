package pjrtifrt_test

import (
	"math/cmplx"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// TestComplexProgram compiles a JAX program with complex64 and complex128
// parameters and results (convert, multiply, abs, a complex matmul, an FFT;
// internal/stablehlo/testdata/bytecode/complex.*), as text and as bytecode,
// on each CPU plugin: the executable describes them as C64 and C128, and the
// results match the same arithmetic done in Go.
func TestComplexProgram(t *testing.T) {
	dir := filepath.Join(testenv.ModuleRoot(), "internal", "stablehlo", "testdata", "bytecode")
	x := make([]float32, 12)
	z := make([]complex64, 12)
	for i := range x {
		x[i] = float32(i) - 5.5
		z[i] = complex(float32(i%5)-2, 0.5*float32(i))
	}
	w := []complex128{complex(1.5, -2), complex(-0.25, 3)}

	// f(x, z, w) = (x.astype(complex64) * z, |z|, z @ conj(z).T, fft(x[0]), w * w)
	var want0 []complex128
	var want1 []float64
	for i := range z {
		want0 = append(want0, complex(float64(x[i]), 0)*complex128(z[i]))
		want1 = append(want1, cmplx.Abs(complex128(z[i])))
	}
	var want2 []complex128
	for i := range 3 {
		for j := range 3 {
			var s complex128
			for k := range 4 {
				s += complex128(z[4*i+k]) * cmplx.Conj(complex128(z[4*j+k]))
			}
			want2 = append(want2, s)
		}
	}
	var want3 []complex128
	for k := range 4 {
		var s complex128
		for n := range 4 {
			s += complex(float64(x[n]), 0) * cmplx.Rect(1, -2*3.141592653589793*float64(k*n)/4)
		}
		want3 = append(want3, s)
	}
	want4 := []complex128{w[0] * w[0], w[1] * w[1]}

	wantParams := []ifrt.ArgumentInfo{{DType: ifrt.F32, Shape: ifrt.Shape{3, 4}}, {DType: ifrt.C64, Shape: ifrt.Shape{3, 4}},
		{DType: ifrt.C128, Shape: ifrt.Shape{2}}}
	wantOutputs := []ifrt.ArgumentInfo{{DType: ifrt.C64, Shape: ifrt.Shape{3, 4}}, {DType: ifrt.F32, Shape: ifrt.Shape{3, 4}},
		{DType: ifrt.C64, Shape: ifrt.Shape{3, 3}}, {DType: ifrt.C64, Shape: ifrt.Shape{4}}, {DType: ifrt.C128, Shape: ifrt.Shape{2}}}

	forEachClient(t, 1, func(t *testing.T, c *pjrtifrt.Client) {
		ctx := testContext(t)
		devs := c.AddressableDevices()[:1]
		s := ifrt.NewSingleDeviceSharding(devs[0], "")
		for _, form := range []string{"mlir", "mlirbc"} {
			t.Run(form, func(t *testing.T) {
				module := golden.ReadFile(t, filepath.Join(dir, "complex."+form))
				exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: module}, &ifrt.CompileOptions{Devices: devs})
				if err != nil {
					t.Fatalf("Compile: %v", err)
				}
				defer exe.Delete()
				if diff := cmp.Diff(wantParams, exe.Parameters()); diff != "" {
					t.Errorf("Parameters() (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(wantOutputs, exe.Outputs()); diff != "" {
					t.Errorf("Outputs() (-want +got):\n%s", diff)
				}
				ax, err := ifrt.MakeArrayFromSlice(ctx, c, x, ifrt.Shape{3, 4}, s)
				if err != nil {
					t.Fatal(err)
				}
				az, err := ifrt.MakeArrayFromSlice(ctx, c, z, ifrt.Shape{3, 4}, s)
				if err != nil {
					t.Fatal(err)
				}
				aw, err := ifrt.MakeArrayFromSlice(ctx, c, w, ifrt.Shape{2}, s)
				if err != nil {
					t.Fatal(err)
				}
				res, err := exe.Execute(ctx, []ifrt.Array{ax, az, aw}, &ifrt.ExecuteOptions{FillStatus: true})
				if err != nil {
					t.Fatalf("Execute: %v", err)
				}
				if err := res.Status.Await(ctx); err != nil {
					t.Fatalf("execution: %v", err)
				}
				if len(res.Outputs) != 5 {
					t.Fatalf("%d outputs, want 5", len(res.Outputs))
				}
				for i, want := range [][]complex128{want0, nil, want2, want3, want4} {
					var got []complex128
					switch i {
					case 1:
						f, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[i])
						if err != nil {
							t.Fatalf("output %d: %v", i, err)
						}
						for k, v := range f {
							got = append(got, complex(float64(v), 0))
							want = append(want, complex(want1[k], 0))
						}
					case 4:
						if got, err = ifrt.ArrayToSlice[complex128](ctx, res.Outputs[i]); err != nil {
							t.Fatalf("output %d: %v", i, err)
						}
					default:
						c64, err := ifrt.ArrayToSlice[complex64](ctx, res.Outputs[i])
						if err != nil {
							t.Fatalf("output %d: %v", i, err)
						}
						for _, v := range c64 {
							got = append(got, complex128(v))
						}
					}
					tol := 1e-5
					if i == 4 {
						tol = 1e-12
					}
					if len(got) != len(want) {
						t.Fatalf("output %d has %d elements, want %d", i, len(got), len(want))
					}
					for k := range got {
						if cmplx.Abs(got[k]-want[k]) > tol*max(1, cmplx.Abs(want[k])) {
							t.Errorf("output %d element %d = %v, want %v", i, k, got[k], want[k])
						}
					}
				}
				for _, a := range append([]ifrt.Array{ax, az, aw}, res.Outputs...) {
					a.Delete()
				}
			})
		}
	})
}
