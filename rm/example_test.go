package rm_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"

	"github.com/openpathways/pathways/rm"
)

// A resource manager for two CPU slices of four devices, and one worker
// registering the second slice.
func Example() {
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv, err := rm.New(rm.Config{InstanceType: "cpu:4", InstanceCount: 2, Logger: logger})
	if err != nil {
		panic(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(lis)
	defer srv.Shutdown(ctx)

	c, err := rm.NewClient(lis.Addr().String(), rm.WithLogger(logger))
	if err != nil {
		panic(err)
	}
	defer c.Close()
	reg, err := c.RegisterAndHeartbeat(ctx, rm.WorkerInfo{
		Slice: 1, Host: 0, Address: "127.0.0.1:29005", Platform: "cpu",
		Devices: make([]rm.LocalDevice, 4),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("device ids:", reg.Assignment().DeviceIDs)

	cl, err := c.Cluster(ctx)
	if err != nil {
		panic(err)
	}
	for _, s := range cl.Slices {
		fmt.Printf("slice %d up: %v\n", s.Index, s.Up)
	}
	// Output:
	// device ids: [4 5 6 7]
	// slice 0 up: false
	// slice 1 up: true
}
