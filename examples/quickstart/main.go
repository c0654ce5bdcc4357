// Command quickstart shows the ifrt API on the pure-Go backend: it lists the devices,
// puts an array sharded over all of them, reshards it, reads it back and prints it,
// then compiles a small StableHLO program and runs it on the sharded array.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.SetFlags(0)
		log.Fatalf("quickstart: %v", err)
	}
}

func run(ctx context.Context, w io.Writer) error {
	client, err := gocpu.New(gocpu.Config{Devices: 8})
	if err != nil {
		return err
	}
	defer client.Close()

	devs := client.AddressableDevices()
	fmt.Fprintf(w, "platform %s, %d devices:", client.Platform().Name, len(devs))
	for _, d := range devs {
		fmt.Fprintf(w, " %v", d)
	}
	fmt.Fprintln(w)

	// An 8x4 f32 array holding 0..31, rows split over the 8 devices.
	shape := ifrt.Shape{8, 4}
	host := make([]float32, shape.NumElements())
	for i := range host {
		host[i] = float32(i)
	}
	rows, err := ifrt.NewTiledSharding(devs, 8, 1)
	if err != nil {
		return err
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, host, shape, rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "put f32%v with %v\n", shape, rows.Spec)

	// Reshard to a 2x2 grid of tiles, each replicated on two devices.
	grid, err := ifrt.NewTiledSharding(devs, 2, 2)
	if err != nil {
		return err
	}
	y, err := ifrt.Reshard(ctx, client, x, grid, ifrt.DonateInput)
	if err != nil {
		return err
	}
	domains, err := grid.IndexDomains(shape)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "resharded to %v:\n", grid.Spec)
	for i, d := range grid.Devices() {
		fmt.Fprintf(w, "  device %d holds %v\n", d.ID, domains[i])
	}

	back, err := ifrt.ArrayToSlice[float32](ctx, y)
	if err != nil {
		return err
	}
	printMatrix(w, back, shape)
	return compute(ctx, client, w, y)
}

// affineAndSum computes 2x+1, kept in x's sharding, and the sum of all of x,
// replicated on every device. The sharding annotations make it an SPMD program over
// 8 devices; gocpu runs its global form and splits the results.
const affineAndSum = `module @affine_and_sum attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,2,2]<=[8] last_tile_dim_replicate}"})
      -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[2,2,2]<=[8] last_tile_dim_replicate}"}, tensor<f32> {mhlo.sharding = "{replicated}"}) {
    %two = stablehlo.constant dense<2.0> : tensor<8x4xf32>
    %one = stablehlo.constant dense<1.0> : tensor<8x4xf32>
    %0 = stablehlo.multiply %x, %two : tensor<8x4xf32>
    %1 = stablehlo.add %0, %one : tensor<8x4xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x4xf32>, tensor<f32>) -> tensor<f32>
    return %1, %sum : tensor<8x4xf32>, tensor<f32>
  }
}`

func compute(ctx context.Context, client ifrt.Client, w io.Writer, x ifrt.Array) error {
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(affineAndSum)},
		&ifrt.CompileOptions{Devices: x.Sharding().Devices()})
	if err != nil {
		return err
	}
	defer exe.Delete()
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		return err
	}
	affine, sum := res.Outputs[0], res.Outputs[1]
	fmt.Fprintf(w, "ran %s on %d devices: 2x+1 has %v\n", exe.Name(), len(exe.Devices()), affine.Sharding())
	back, err := ifrt.ArrayToSlice[float32](ctx, affine)
	if err != nil {
		return err
	}
	printMatrix(w, back, affine.Shape())
	total, err := ifrt.ArrayToSlice[float32](ctx, sum)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "sum of x = %g\n", total[0])
	return nil
}

func printMatrix(w io.Writer, v []float32, shape ifrt.Shape) {
	for r := range shape[0] {
		fmt.Fprint(w, " ")
		for c := range shape[1] {
			fmt.Fprintf(w, " %4g", v[r*shape[1]+c])
		}
		fmt.Fprintln(w)
	}
}
