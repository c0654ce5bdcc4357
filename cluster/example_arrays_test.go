package cluster_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// A cluster client is an ifrt.Client over every worker: an array split over two
// slices reads back whole, and Reshard gathers it onto one slice's devices.
func ExampleClient_arrays() {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true, Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	client, err := cluster.Connect(ctx, c.RMAddress, cluster.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	devices := client.Devices()

	quarters, err := ifrt.NewTiledSharding(devices, 4) // one element per device, on both slices
	if err != nil {
		panic(err)
	}
	x, err := ifrt.MakeArrayFromSlice(ctx, client, []int64{1, 2, 3, 4}, ifrt.Shape{4}, quarters)
	if err != nil {
		panic(err)
	}
	onSlice0, err := ifrt.NewReplicatedSharding(devices[:2])
	if err != nil {
		panic(err)
	}
	y, err := ifrt.Reshard(ctx, client, x, onSlice0, ifrt.DonateInput)
	if err != nil {
		panic(err)
	}
	values, err := ifrt.ArrayToSlice[int64](ctx, y)
	if err != nil {
		panic(err)
	}
	fmt.Println(values, "on devices", y.Sharding().Devices())
	// Output:
	// [1 2 3 4] on devices [0,1]
}
