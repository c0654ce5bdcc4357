package cluster_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// BenchmarkCopyAcrossSlices64MiB copies a 64 MiB array sharded over the 2
// devices of slice 0 to the 2 devices of slice 1 (each shard from one
// worker to another, Peer.Gather, the shards in parallel) and 64 MiB with
// copy() in the same run, and reports the cross-slice copy's share of
// memcpy's rate, the best of each.
func BenchmarkCopyAcrossSlices64MiB(b *testing.B) {
	const n = 64 << 20
	l := startLocal(b, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := context.Background()
	c := l.Client
	devs := c.Devices()
	from, to := ifrt.DeviceList{devs[0], devs[1]}, ifrt.DeviceList{devs[2], devs[3]}
	tiled, err := ifrt.Tiled([]int64{2}, 2)
	if err != nil {
		b.Fatal(err)
	}
	s, err := ifrt.NewHloSharding(from, "", tiled)
	if err != nil {
		b.Fatal(err)
	}
	data, dst := make([]byte, n), make([]byte, n)
	for i := range data {
		data[i] = byte(i)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{n}, Sharding: s}, nil)
	if err != nil {
		b.Fatal(err)
	}
	copy(dst, data)
	xfer, memcpy := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	for b.Loop() {
		start := time.Now()
		out, err := c.CopyArrays(ctx, []ifrt.Array{x}, to, nil, ifrt.AlwaysCopy)
		if err != nil {
			b.Fatal(err)
		}
		xfer = min(xfer, time.Since(start))
		out[0].Delete()
		start = time.Now()
		copy(dst, data)
		memcpy = min(memcpy, time.Since(start))
	}
	b.ReportMetric(float64(memcpy)/float64(xfer), "x-of-memcpy")
}
