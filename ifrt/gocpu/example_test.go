package gocpu_test

import (
	"context"
	"fmt"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// A client of two virtual devices runs a StableHLO program (as jax.jit(f).lower(x).as_text()
// prints it) on one of them.
func ExampleNew() {
	ctx := context.Background()
	client, err := gocpu.New(gocpu.Config{Devices: 2})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	fmt.Println(client.Platform().Name, client.Platform().RuntimeType, "devices", client.AddressableDevices())

	const affine = `module @affine {
  func.func public @main(%x: tensor<3xf32>, %a: tensor<f32>) -> tensor<3xf32> {
    %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.multiply %x, %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}`
	device := client.AddressableDevices()[1]
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(affine)},
		&ifrt.CompileOptions{Devices: ifrt.DeviceList{device}})
	if err != nil {
		panic(err)
	}
	defer exe.Delete()

	on := ifrt.NewSingleDeviceSharding(device, "")
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{1, 2, 3}, ifrt.Shape{3}, on)
	if err != nil {
		panic(err)
	}
	a, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{10}, ifrt.Shape{}, on)
	if err != nil {
		panic(err)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x, a}, nil)
	if err != nil {
		panic(err)
	}
	y, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[0])
	if err != nil {
		panic(err)
	}
	fmt.Println(y, "on device", res.Outputs[0].Sharding().Devices())
	// Output:
	// cpu gocpu devices [0,1]
	// [10 20 30] on device [1]
}
