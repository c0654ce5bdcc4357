package proxy_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math"
	"net"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/gocpu"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"google.golang.org/grpc"
	"google.golang.org/grpc/test/bufconn"
)

// A proxy client of an in-process proxy server over the pure-Go backend,
// connected through bufconn. Against a real server, dial "grpc://host:port".
func ExampleDial() {
	backend, _ := gocpu.New(gocpu.Config{Devices: 4})
	defer backend.Close()
	srv, _ := proxyserver.New(proxyserver.Config{Backend: backend, Logger: slog.New(slog.DiscardHandler)})
	lis := bufconn.Listen(1 << 20)
	go srv.Serve(lis)
	defer srv.Close()

	ctx := context.Background()
	client, err := proxy.Dial(ctx, "passthrough:///bufnet",
		proxy.WithDialOptions(grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) })),
		proxy.WithInsecure())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	devs := client.AddressableDevices()
	fmt.Println(client.Platform().RuntimeType, len(devs), "devices")

	// Eight floats, two rows per device.
	data := make([]byte, 4*8)
	for i := range 8 {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i)))
	}
	sharding, _ := ifrt.NewTiledSharding(devs, 4, 1)
	a, err := client.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4, 2}, Sharding: sharding}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	shards, _ := client.DisassembleArray(ctx, a, ifrt.AlwaysCopy)
	row := make([]byte, 8)
	_ = shards[3].CopyToHostBuffer(ctx, row, nil)
	fmt.Println("last shard:", math.Float32frombits(binary.LittleEndian.Uint32(row)), math.Float32frombits(binary.LittleEndian.Uint32(row[4:])))
	// Output:
	// proxy/gocpu 4 devices
	// last shard: 6 7
}
