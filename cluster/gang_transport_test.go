package cluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
)

// TestGangAllReduceTransports sums a vector across two workers with the
// exchange data in shared memory (workers of one host) and over the
// connection (PATHWAYS_PEER_SHARED_MEMORY=off, as between hosts). The large
// vector is several segments and frames long and not a multiple of either;
// the small one's messages are pooled buffers too small for grpc-go to stop
// holding them for a retry by itself (they never arrived: pmap's psum of
// 128x128 hung).
func TestGangAllReduceTransports(t *testing.T) {
	for _, size := range []struct {
		name string
		n    int
	}{{"20 MiB", 5<<20 + 3}, {"64 KiB", 16 << 10}} {
		for _, mode := range []struct{ name, env string }{{"shared memory", ""}, {"connection", "off"}} {
			t.Run(size.name+" "+mode.name, func(t *testing.T) {
				t.Setenv("PATHWAYS_PEER_SHARED_MEMORY", mode.env)
				l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				exe, x := communicatortest.ReplicatedAllReduce(ctx, t, l.Client, size.n, 4093)
				for range 2 { // the second reuses the first one's segments
					res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
					if err != nil {
						t.Fatal(err)
					}
					shards, err := l.Client.DisassembleArray(ctx, res.Outputs[0], ifrt.AlwaysCopy)
					if err != nil {
						t.Fatal(err)
					}
					for _, shard := range shards {
						communicatortest.CheckAllReduce(ctx, t, shard, 2, 4093)
						shard.Delete()
					}
					res.Outputs[0].Delete()
				}
			})
		}
	}
}

// TestGangCostAnalysis: a program across workers reports the workers' cost
// estimate of the whole program (jax's compiled.cost_analysis() was None).
func TestGangCostAnalysis(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := context.Background()
	exe, x := communicatortest.ReplicatedAllReduce(ctx, t, l.Client, 1024, 7)
	defer x.Delete()
	ca, ok := exe.(ifrt.CostAnalyzer)
	if !ok {
		t.Fatalf("%T has no cost analysis", exe)
	}
	got, err := ca.CostAnalysis()
	if err != nil {
		t.Fatal(err)
	}
	m, err := stablehlo.Parse([]byte(communicatortest.AllReduceSum(len(l.Client.Devices()), 1024)))
	if err != nil {
		t.Fatal(err)
	}
	c := m.Cost()
	want := ifrt.Attributes{"flops": c.Flops, "transcendentals": c.Transcendentals, "bytes accessed": c.BytesAccessed}
	if !cmp.Equal(got, want) || c.BytesAccessed == 0 {
		t.Errorf("CostAnalysis() = %v, want %v", got, want)
	}
}

// TestMemoryAnalysis: a program across workers reports the workers'
// estimate of what one device holds (a replicated f32[1024] in and out, and
// the temporaries of the module), and a program on one worker reports that
// worker's (jax's compiled.memory_analysis() was None).
func TestMemoryAnalysis(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := context.Background()
	exe, x := communicatortest.ReplicatedAllReduce(ctx, t, l.Client, 1024, 7)
	defer x.Delete()
	m, err := stablehlo.Parse([]byte(communicatortest.AllReduceSum(len(l.Client.Devices()), 1024)))
	if err != nil {
		t.Fatal(err)
	}
	want := ifrt.CompiledMemoryStats{ArgumentSizeInBytes: 4096, OutputSizeInBytes: 4096, TempSizeInBytes: m.TempBytes(), PeakMemoryInBytes: 8192 + m.TempBytes()}
	if got, err := exe.(ifrt.MemoryAnalyzer).CompiledMemoryStats(); err != nil || got != want {
		t.Errorf("spanning program: CompiledMemoryStats() = %+v, %v; want %+v", got, err, want)
	}

	one, err := l.Client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(`func.func @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.negate %a : tensor<16xf32>
  return %b : tensor<16xf32>
}`)}, &ifrt.CompileOptions{Devices: l.Client.Devices()[:1]})
	if err != nil {
		t.Fatal(err)
	}
	want = ifrt.CompiledMemoryStats{ArgumentSizeInBytes: 64, OutputSizeInBytes: 64, PeakMemoryInBytes: 128}
	if got, err := one.(ifrt.MemoryAnalyzer).CompiledMemoryStats(); err != nil || got != want {
		t.Errorf("one worker's program: CompiledMemoryStats() = %+v, %v; want %+v", got, err, want)
	}
}
