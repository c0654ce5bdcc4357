// Command quickstart shows the ifrt API on the pure-Go backend: it lists the devices,
// puts an array sharded over all of them, reshards it, reads it back and prints it.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"math"
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
	host := make([]byte, 4*shape.NumElements())
	for i := range shape.NumElements() {
		binary.LittleEndian.PutUint32(host[4*i:], math.Float32bits(float32(i)))
	}
	rows, err := ifrt.NewTiledSharding(devs, 8, 1)
	if err != nil {
		return err
	}
	x, err := client.MakeArrayFromHostBuffer(ctx, host, ifrt.ArraySpec{DType: ifrt.F32, Shape: shape, Sharding: rows}, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "put f32%v with %v\n", shape, rows.Spec)

	// Reshard to a 2x2 grid of tiles, each replicated on two devices.
	grid, err := ifrt.NewTiledSharding(devs, 2, 2)
	if err != nil {
		return err
	}
	out, err := client.Reshard(ctx, []ifrt.Array{x}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: shape, Sharding: grid}}, ifrt.DonateInput)
	if err != nil {
		return err
	}
	y := out[0]
	domains, err := grid.IndexDomains(shape)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "resharded to %v:\n", grid.Spec)
	for i, d := range grid.Devices() {
		fmt.Fprintf(w, "  device %d holds %v\n", d.ID, domains[i])
	}

	back := make([]byte, len(host))
	if err := y.CopyToHostBuffer(ctx, back, nil); err != nil {
		return err
	}
	printMatrix(w, back, shape)
	return nil
}

func printMatrix(w io.Writer, b []byte, shape ifrt.Shape) {
	for r := range shape[0] {
		fmt.Fprint(w, " ")
		for c := range shape[1] {
			i := r*shape[1] + c
			fmt.Fprintf(w, " %4g", math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		fmt.Fprintln(w)
	}
}
