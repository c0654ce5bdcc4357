package gocpu_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// TestCostAnalysis: a compiled program reports XLA's cost keys, estimated
// from the program (a 2x3 by 3x2 dot: 2·4·3 flops; a sine of it: 4
// transcendentals).
func TestCostAnalysis(t *testing.T) {
	c := newClient(t, gocpu.Config{Devices: 1})
	exe, err := c.Compile(context.Background(), &ifrt.MLIRProgram{Module: []byte(`func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<2x2xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %s = stablehlo.sine %d : tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}`)}, &ifrt.CompileOptions{Devices: c.Devices()})
	if err != nil {
		t.Fatal(err)
	}
	ca, ok := exe.(ifrt.CostAnalyzer)
	if !ok {
		t.Fatal("a gocpu executable is no ifrt.CostAnalyzer")
	}
	got, err := ca.CostAnalysis()
	if err != nil {
		t.Fatal(err)
	}
	want := ifrt.Attributes{"flops": 24.0, "transcendentals": 4.0, "bytes accessed": float64(4 * (6 + 6 + 4 + 4 + 4))}
	if !cmp.Equal(got, want) {
		t.Errorf("CostAnalysis() = %v, want %v", got, want)
	}
}
