package cluster_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// TestCopyAcrossSlicesTransports copies an array sharded over slice 0's two
// devices to slice 1's, and to one device of slice 1 (a gather of pieces of
// two workers), with the pieces in shared memory (workers of one host) and
// over the connection (PATHWAYS_PEER_SHARED_MEMORY=off, as between hosts).
// The shards are several segments and chunks long and not a multiple of
// either.
func TestCopyAcrossSlicesTransports(t *testing.T) {
	const n = 2 * (9<<20 + 5)
	for _, mode := range []struct{ name, env string }{{"shared memory", ""}, {"connection", "off"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("PATHWAYS_PEER_SHARED_MEMORY", mode.env)
			ctx := context.Background()
			l, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			c := l.Client
			devs := c.Devices()
			tiled, err := ifrt.Tiled([]int64{2}, 2)
			if err != nil {
				t.Fatal(err)
			}
			s, err := ifrt.NewHloSharding(ifrt.DeviceList{devs[0], devs[1]}, "", tiled)
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i % 251)
			}
			x, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{n}, Sharding: s}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, to := range []ifrt.DeviceList{{devs[2], devs[3]}, {devs[2]}} {
				var out []ifrt.Array
				if len(to) == 2 {
					out, err = c.CopyArrays(ctx, []ifrt.Array{x}, to, nil, ifrt.AlwaysCopy)
				} else {
					out, err = c.Reshard(ctx, []ifrt.Array{x}, []ifrt.ArraySpec{{DType: ifrt.U8, Shape: ifrt.Shape{n}, Sharding: ifrt.NewSingleDeviceSharding(to[0], "")}}, ifrt.AlwaysCopy)
				}
				if err != nil {
					t.Fatalf("to %v: %v", to, err)
				}
				got := make([]byte, n)
				if err := out[0].CopyToHostBuffer(ctx, got, nil); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data) {
					t.Errorf("to %v: the copy differs from the array", to)
				}
				out[0].Delete()
			}
		})
	}
}
