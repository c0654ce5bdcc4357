package ifrt_test

import (
	"context"
	"fmt"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

// A Go slice goes to an array split over four devices and comes back.
func ExampleMakeArrayFromSlice() {
	ctx := context.Background()
	client, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	// A 4x2 matrix, one row on each device.
	rows, err := ifrt.NewTiledSharding(client.AddressableDevices(), 4, 1)
	if err != nil {
		panic(err)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{1, 2, 3, 4, 5, 6, 7, 8}, ifrt.Shape{4, 2}, rows)
	if err != nil {
		panic(err)
	}
	fmt.Println(x.DType(), x.Shape())

	back, err := ifrt.ArrayToSlice[float32](ctx, x)
	if err != nil {
		panic(err)
	}
	fmt.Println(back)
	// Output:
	// f32 [4,2]
	// [1 2 3 4 5 6 7 8]
}

// The 16-bit float types travel as their bits.
func ExampleFloat16() {
	ctx := context.Background()
	client, err := gocpu.New(gocpu.Config{Devices: 1})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	one := ifrt.NewSingleDeviceSharding(client.AddressableDevices()[0], "")
	halves := []ifrt.Float16{0x3c00, 0xc000} // 1.0 and -2.0
	x, err := ifrt.MakeArrayFromSlice(ctx, client, halves, ifrt.Shape{2}, one)
	if err != nil {
		panic(err)
	}
	back, err := ifrt.ArrayToSlice[ifrt.Float16](ctx, x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v %#04x\n", x.DType(), back)
	// Output:
	// f16 [0x3c00 0xc000]
}

// Reshard moves an array to another sharding; the dtype and shape come from the
// array. Here a vector split over four devices becomes a whole copy on each.
func ExampleReshard() {
	ctx := context.Background()
	client, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	devices := client.AddressableDevices()

	split, err := ifrt.NewTiledSharding(devices, 4)
	if err != nil {
		panic(err)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []int32{10, 20, 30, 40}, ifrt.Shape{4}, split)
	if err != nil {
		panic(err)
	}
	everywhere, err := ifrt.NewReplicatedSharding(devices)
	if err != nil {
		panic(err)
	}
	y, err := ifrt.Reshard(ctx, client, x, everywhere, ifrt.DonateInput)
	if err != nil {
		panic(err)
	}
	domains, err := y.Sharding().IndexDomains(y.Shape())
	if err != nil {
		panic(err)
	}
	fmt.Println("input deleted:", x.IsDeleted())
	fmt.Println("device 3 holds", domains[3])
	// Output:
	// input deleted: true
	// device 3 holds [0:4]
}

// A program compiled for four devices runs on an array sharded over them.
func ExampleLoadedExecutable() {
	ctx := context.Background()
	client, err := gocpu.New(gocpu.Config{Devices: 4})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	devices := client.AddressableDevices()

	const double = `module @double attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[4]<=[4]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)}, &ifrt.CompileOptions{Devices: devices})
	if err != nil {
		panic(err)
	}
	defer exe.Delete()

	split, err := ifrt.NewTiledSharding(devices, 4)
	if err != nil {
		panic(err)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{0, 1, 2, 3, 4, 5, 6, 7}, ifrt.Shape{8}, split)
	if err != nil {
		panic(err)
	}
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		panic(err)
	}
	out, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[0])
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// [0 2 4 6 8 10 12 14]
}
