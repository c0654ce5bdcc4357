package cluster_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
)

// A client of a cluster of two slices of four devices (started in process
// here; a real program names the resource manager's address).
func ExampleConnect() {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, Logger: quiet})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	client, err := cluster.Connect(ctx, c.RMAddress, cluster.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	defer client.Close()
	fmt.Println(client.Platform().Name, client.Platform().Version, len(client.Devices()), "devices")
	// Output:
	// cpu cpu:4 8 devices
}
