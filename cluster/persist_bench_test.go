package cluster_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// BenchmarkPersist256MiB saves a 256 MiB f32 array, sharded over the eight
// devices of two workers, to a directory (each worker writing its own shards
// as Orbax's zstd-compressed Zarr chunks) and reads it back, against writing
// and reading the same bytes as one file with plain Go. It reports both
// throughputs and their ratios (write_ratio, read_ratio: workers / plain).
func BenchmarkPersist256MiB(b *testing.B) {
	const size = 256 << 20
	l := startLocal(b, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := context.Background()
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	// Weights are incompressible in practice: random bits, not zeros.
	data := make([]byte, size)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < size; i += 8 {
		v := r.Uint64()
		for k := range 8 {
			data[i+k] = byte(v >> (8 * k))
		}
	}
	sharding, err := ifrt.NewTiledSharding(c.Devices(), 8, 1)
	if err != nil {
		b.Fatal(err)
	}
	spec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8192, size / 4 / 8192}, Sharding: sharding}
	a, err := c.MakeArrayFromHostBuffer(ctx, data, spec, nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var plainW, plainR, workersW, workersR time.Duration
	for i := 0; b.Loop(); i++ {
		file := filepath.Join(dir, "plain.bin")
		start := time.Now()
		if err := os.WriteFile(file, data, 0o644); err != nil {
			b.Fatal(err)
		}
		plainW += time.Since(start)
		start = time.Now()
		if _, err := os.ReadFile(file); err != nil {
			b.Fatal(err)
		}
		plainR += time.Since(start)
		if err := os.Remove(file); err != nil {
			b.Fatal(err)
		}

		location := "file://" + filepath.Join(dir, "ckpt")
		start = time.Now()
		if err := c.WriteArrays(ctx, location, []string{"w"}, []ifrt.Array{a}); err != nil {
			b.Fatal(err)
		}
		workersW += time.Since(start)
		start = time.Now()
		back, err := c.ReadArrays(ctx, location, []string{"w"}, []ifrt.ArraySpec{spec})
		if err != nil {
			b.Fatal(err)
		}
		if err := back[0].Ready().Await(ctx); err != nil {
			b.Fatal(err)
		}
		workersR += time.Since(start)
		if i == 0 {
			got := make([]byte, size)
			if err := back[0].CopyToHostBuffer(ctx, got, nil); err != nil || !bytes.Equal(got, data) {
				b.Fatalf("read back differs (%v)", err)
			}
		}
		back[0].Delete()
		os.RemoveAll(filepath.Join(dir, "ckpt"))
	}
	mibps := func(d time.Duration) float64 { return float64(b.N) * size / (1 << 20) / d.Seconds() }
	b.ReportMetric(mibps(workersW), "workers_write_MiB/s")
	b.ReportMetric(mibps(workersR), "workers_read_MiB/s")
	b.ReportMetric(mibps(plainW), "plain_write_MiB/s")
	b.ReportMetric(mibps(plainR), "plain_read_MiB/s")
	b.ReportMetric(plainW.Seconds()/workersW.Seconds(), "write_ratio")
	b.ReportMetric(plainR.Seconds()/workersR.Seconds(), "read_ratio")
}
