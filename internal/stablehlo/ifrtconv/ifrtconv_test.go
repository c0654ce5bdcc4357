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

// TestCostAttributes: an auto-sharded program over 8 partitions (global
// shapes) reports one device's eighth of its cost, as XLA's partitioned
// program does; a program with collectives, written per device, its whole
// cost.
func TestCostAttributes(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		share      float64
	}{
		{"auto-sharded", `%0 = stablehlo.multiply %arg0, %arg0 : tensor<64xf32>`, 8},
		{"collectives", `%0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%x: tensor<f32>, %y: tensor<f32>):
      %s = stablehlo.add %x, %y : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<64xf32>) -> tensor<64xf32>`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := stablehlo.Parse([]byte(`module @m attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) -> tensor<64xf32> {
    ` + tc.body + `
    return %0 : tensor<64xf32>
  }
}`))
			if err != nil {
				t.Fatal(err)
			}
			c := m.Cost()
			got := ifrtconv.CostAttributes(m)
			if got["flops"] != c.Flops/tc.share || got["bytes accessed"] != c.BytesAccessed/tc.share || c.Flops == 0 {
				t.Errorf("CostAttributes = %v, want the module's cost %+v divided by %v", got, c, tc.share)
			}
		})
	}
}
