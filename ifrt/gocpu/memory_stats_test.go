package gocpu_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// TestCompiledMemoryStats counts one device of a program over 4: its rows
// of the donated %a (8x4 f32 over 4 devices: 32 bytes), which the updated
// rows take over, the whole replicated %w (64 bytes), the outputs (32 and 4
// bytes), and the 8x8 product the program holds before reducing it (256
// bytes, the global value: the interpreter runs the sharded program whole).
func TestCompiledMemoryStats(t *testing.T) {
	c := newClient(t, gocpu.Config{Devices: 4})
	exe, err := c.Compile(context.Background(), &ifrt.MLIRProgram{Module: []byte(`module @jit_step attributes {mhlo.num_partitions = 4 : i32} {
  func.func public @main(%a: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}", jax.buffer_donor = true}, %w: tensor<4x4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<f32> {mhlo.sharding = "{replicated}"}) {
    %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>
    %p = stablehlo.dot_general %a, %t, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%p init: %z) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
    %u = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    return %u, %s : tensor<8x4xf32>, tensor<f32>
  }
}`)}, &ifrt.CompileOptions{Devices: c.Devices()})
	if err != nil {
		t.Fatal(err)
	}
	ma, ok := exe.(ifrt.MemoryAnalyzer)
	if !ok {
		t.Fatal("a gocpu executable is no ifrt.MemoryAnalyzer")
	}
	got, err := ma.CompiledMemoryStats()
	if err != nil {
		t.Fatal(err)
	}
	want := ifrt.CompiledMemoryStats{
		ArgumentSizeInBytes: 32 + 64,
		OutputSizeInBytes:   32 + 4,
		AliasSizeInBytes:    32,
		TempSizeInBytes:     4*8*4 + 8*8*4, // the transpose and the product
		PeakMemoryInBytes:   96 + 36 - 32 + 128 + 256,
	}
	if !cmp.Equal(got, want) {
		t.Errorf("CompiledMemoryStats() = %+v, want %+v", got, want)
	}
}
