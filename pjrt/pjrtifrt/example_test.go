package pjrtifrt_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/pjrt/pjrtifrt"
)

// Compile and run an SPMD program over 8 CPU devices: rows of x split over the
// devices, doubled, and their column sums (an all-reduce) replicated.
func Example() {
	ctx := context.Background()
	c, err := pjrtifrt.New(ctx, pjrtifrt.Config{PluginPath: ".plugins/cpu.so", Devices: 8})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	devs := c.AddressableDevices()
	rows, err := ifrt.NewTiledSharding(devs, 8, 1)
	if err != nil {
		log.Fatal(err)
	}
	data := make([]byte, 8*2*4)
	for i := range 16 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)))
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8, 2}, Sharding: rows}, nil)
	if err != nil {
		log.Fatal(err)
	}
	const program = `module @spmd attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x2xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<8x2xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, tensor<2xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x2xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %1 = stablehlo.reduce(%arg0 init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<8x2xf32>, tensor<f32>) -> tensor<2xf32>
    return %0, %1 : tensor<8x2xf32>, tensor<2xf32>
  }
}`
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(program)}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		log.Fatal(err)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		log.Fatal(err)
	}
	sums := make([]byte, 8)
	if err := res.Outputs[1].CopyToHostBuffer(ctx, sums, nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(math.Float32frombits(binary.LittleEndian.Uint32(sums)), math.Float32frombits(binary.LittleEndian.Uint32(sums[4:])))
}
