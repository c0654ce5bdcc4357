package cluster_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
)

// TestGangAllReduceTransports sums a vector across two workers with the
// exchange data in shared memory (workers of one host) and over the
// connection (PATHWAYS_PEER_SHARED_MEMORY=off, as between hosts). The
// vector is several segments and frames long and not a multiple of either.
func TestGangAllReduceTransports(t *testing.T) {
	const n = 5<<20 + 3 // 20 MiB of f32
	for _, mode := range []struct{ name, env string }{{"shared memory", ""}, {"connection", "off"}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Setenv("PATHWAYS_PEER_SHARED_MEMORY", mode.env)
			ctx := context.Background()
			l, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true, Logger: quietLogger()})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			c := l.Client
			devs := c.Devices()
			exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(communicatortest.AllReduceSum(2, n))}, &ifrt.CompileOptions{Devices: devs})
			if err != nil {
				t.Fatal(err)
			}
			s, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
			if err != nil {
				t.Fatal(err)
			}
			data := make([]byte, 4*n)
			for i := range n {
				binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i%4093)))
			}
			x, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{n}, Sharding: s}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for run := range 2 { // the second reuses the first one's segments
				res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
				if err != nil {
					t.Fatal(err)
				}
				shards, err := c.DisassembleArray(ctx, res.Outputs[0], ifrt.AlwaysCopy)
				if err != nil {
					t.Fatal(err)
				}
				for _, shard := range shards {
					got := make([]byte, 4*n)
					if err := shard.CopyToHostBuffer(ctx, got, nil); err != nil {
						t.Fatal(err)
					}
					for i := range n {
						if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != float32(2*(i%4093)) {
							t.Fatalf("run %d, shard on %v: element %d of the sum is %v, want %v", run, shard.Sharding().Devices(), i, v, 2*(i%4093))
						}
					}
					shard.Delete()
				}
				res.Outputs[0].Delete()
			}
		})
	}
}
