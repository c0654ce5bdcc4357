package stablehlo_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/openpathways/pathways/internal/stablehlo"
)

func Example() {
	// What jax.jit(lambda x, y: x * y + 1).lower(x, y).as_text() prints,
	// trimmed.
	src := `module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.add %0, %1 : tensor<3xf32>
    return %2 : tensor<3xf32>
  }
}`
	m, err := stablehlo.Parse([]byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	f32s := func(v ...float32) *stablehlo.Tensor {
		data := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
		}
		t, _ := stablehlo.NewTensor(stablehlo.TensorType{Elem: stablehlo.F32, Shape: []int64{int64(len(v))}}, data)
		return t
	}
	out, err := m.Run(context.Background(), []*stablehlo.Tensor{f32s(1, 2, 3), f32s(4, 5, 6)})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := 0; i < 3; i++ {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*i:])), " ")
	}
	fmt.Println(out[0].Type)
	// Output: 5 11 19 tensor<3xf32>
}

func ExampleParseHloSharding() {
	s, err := stablehlo.ParseHloSharding("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Type, s.TileAssignmentDims, s.Devices(), s.ReplicateOnLastTileDim)
	// Output: OTHER [2 1 2] [0 2 1 3] true
}
