package pathways_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// A Go program on a cluster of two slices of two gocpu devices, run in
// process: an array split over both workers, moved onto one, and a program run
// there.
func Example() {
	ctx := context.Background()
	c, err := local.Start(ctx, local.Config{
		Slices: 2, DevicesPerSlice: 2, NoProxy: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	client := c.Client
	devices := client.Devices()
	for _, d := range devices {
		slice, _ := d.Attributes.Int64(ifrt.AttrSliceIndex)
		fmt.Printf("device %d on slice %d\n", d.ID, slice)
	}

	// 0..7, two elements on each device: the shards live on both workers.
	rows, err := ifrt.NewTiledSharding(devices, 4)
	if err != nil {
		panic(err)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []float32{0, 1, 2, 3, 4, 5, 6, 7}, ifrt.Shape{8}, rows)
	if err != nil {
		panic(err)
	}

	// Move it onto slice 0 alone, halves on its two devices: the worker of
	// slice 0 fetches the other half from the worker of slice 1.
	halves, err := ifrt.NewTiledSharding(devices[:2], 2)
	if err != nil {
		panic(err)
	}
	moved, err := ifrt.Reshard(ctx, client, x, halves, ifrt.DonateInput)
	if err != nil {
		panic(err)
	}

	// A program runs on the worker that owns its devices.
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(double)},
		&ifrt.CompileOptions{Devices: devices[:2]})
	if err != nil {
		panic(err)
	}
	defer exe.Delete()
	res, err := exe.Execute(ctx, []ifrt.Array{moved}, nil)
	if err != nil {
		panic(err)
	}
	out, err := ifrt.ArrayToSlice[float32](ctx, res.Outputs[0])
	if err != nil {
		panic(err)
	}
	fmt.Println("2x =", out)
	// Output:
	// device 0 on slice 0
	// device 1 on slice 0
	// device 2 on slice 1
	// device 3 on slice 1
	// 2x = [0 2 4 6 8 10 12 14]
}

// double is 2x over two devices, each doubling its half.
const double = `module @double attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) -> (tensor<8xf32> {mhlo.sharding = "{devices=[2]<=[2]}"}) {
    %0 = stablehlo.add %x, %x : tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}`
