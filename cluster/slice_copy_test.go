package cluster_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/openpathways/pathways/cluster"
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
	acrossTransports(t, func(t *testing.T, c *cluster.Client) {
		ctx := context.Background()
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

// TestReshardAcrossSlicesExact reshards 2-dimensional arrays from slice 0
// to slice 1 so that every way a gather places a piece is taken: row blocks
// to column blocks (the source sends strided parts, the destination
// receives whole rows in place), column blocks to row blocks (the reverse),
// and replicas to row blocks (pieces that overlap each other). The bytes
// must arrive exactly, over shared memory and over the connection.
func TestReshardAcrossSlicesExact(t *testing.T) {
	const rows, cols = 1026, 2054
	acrossTransports(t, func(t *testing.T, c *cluster.Client) {
		ctx := context.Background()
		devs := c.Devices()
		sharding := func(devices ifrt.DeviceList, tiles ...int64) ifrt.Sharding {
			tiling := ifrt.Replicated()
			if tiles != nil {
				var err error
				if tiling, err = ifrt.Tiled(tiles, 2); err != nil {
					t.Fatal(err)
				}
			}
			s, err := ifrt.NewHloSharding(devices, "", tiling)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		from, to := ifrt.DeviceList{devs[0], devs[1]}, ifrt.DeviceList{devs[2], devs[3]}
		data := make([]byte, rows*cols)
		for i := range data {
			data[i] = byte(i % 253)
		}
		for _, tc := range []struct {
			name     string
			src, dst ifrt.Sharding
		}{
			{"rows to columns", sharding(from, 2, 1), sharding(to, 1, 2)},
			{"columns to rows", sharding(from, 1, 2), sharding(to, 2, 1)},
			{"replicas to rows", sharding(from), sharding(to, 2, 1)},
		} {
			spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{rows, cols}, Sharding: tc.src}
			x, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			spec.Sharding = tc.dst
			out, err := c.Reshard(ctx, []ifrt.Array{x}, []ifrt.ArraySpec{spec}, ifrt.AlwaysCopy)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got := make([]byte, len(data))
			if err := out[0].CopyToHostBuffer(ctx, got, nil); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s: the resharded array differs", tc.name)
			}
			out[0].Delete()
			x.Delete()
		}
	})
}

// acrossTransports runs f on a cluster of 2 slices of 2 devices whose
// workers pass pieces through shared memory, and on one whose workers pass
// them over the connection (PATHWAYS_PEER_SHARED_MEMORY=off, as between
// hosts).
func acrossTransports(t *testing.T, f func(t *testing.T, c *cluster.Client)) {
	for _, mode := range []struct{ name, env string }{{"shared memory", ""}, {"connection", "off"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("PATHWAYS_PEER_SHARED_MEMORY", mode.env)
			l, err := local.Start(context.Background(), local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			f(t, l.Client)
		})
	}
}
