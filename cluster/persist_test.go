package cluster_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/storage"
	_ "github.com/openpathways/pathways/storage/gcs"
	"github.com/openpathways/pathways/storage/gcs/gcstest"
)

// TestPersist stores a sharded and a replicated array with the workers of two
// slices, to a directory and to the Cloud Storage emulator, and reads them back
// into other shardings.
func TestPersist(t *testing.T) {
	gcstest.Start(t, "ckpt-bucket")
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	devs := c.Devices()
	tiled, err := ifrt.NewTiledSharding(devs, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	replicated, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	wData := make([]byte, 8*16*4)
	for i := range wData {
		wData[i] = byte(i*31 + 7)
	}
	bData := make([]byte, 6*2) // bf16, 6 elements: not a multiple of anything
	for i := range bData {
		bData[i] = byte(i + 1)
	}
	wSpec := ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8, 16}, Sharding: tiled}
	bSpec := ifrt.ArraySpec{DType: ifrt.BF16, Shape: ifrt.Shape{6}, Sharding: replicated}
	w, err := c.MakeArrayFromHostBuffer(ctx, wData, wSpec, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.MakeArrayFromHostBuffer(ctx, bData, bSpec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteArrays(ctx, "file://"+t.TempDir(), []string{"x", "x"}, []ifrt.Array{w, b}); !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("storing two arrays under one name: %v; want INVALID_ARGUMENT", err)
	}
	for _, location := range []string{"file://" + t.TempDir() + "/ckpt/100", "gs://ckpt-bucket/runs/a/100"} {
		t.Run(location[:2], func(t *testing.T) {
			if err := c.WriteArrays(ctx, location, []string{"params.w", "b"}, []ifrt.Array{w, b}); err != nil {
				t.Fatal(err)
			}
			loc, err := storage.Open(ctx, location)
			if err != nil {
				t.Fatal(err)
			}
			defer loc.Close()
			names, err := loc.List(ctx, "")
			if err != nil {
				t.Fatal(err)
			}
			// 8 chunks of w (2x4 tiles), one of the replicated b, two metadata.
			if len(names) != 11 {
				t.Errorf("stored %d objects %v, want 11", len(names), names)
			}
			// Read w back on one worker's devices only, and b split in 2.
			col, _ := ifrt.NewTiledSharding(devs[4:], 1, 4)
			half, _ := ifrt.NewTiledSharding(devs[2:4], 2)
			got, err := c.ReadArrays(ctx, location, []string{"params.w", "b"}, []ifrt.ArraySpec{
				{DType: ifrt.F32, Shape: wSpec.Shape, Sharding: col},
				{DType: ifrt.BF16, Shape: bSpec.Shape, Sharding: half},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range [][]byte{wData, bData} {
				back := make([]byte, len(want))
				if err := got[i].CopyToHostBuffer(ctx, back, nil); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(back, want) {
					t.Errorf("array %d read back differs", i)
				}
				got[i].Delete()
			}
			// A stored array read as another dtype or shape fails clearly.
			_, err = c.ReadArrays(ctx, location, []string{"b"}, []ifrt.ArraySpec{{DType: ifrt.F32, Shape: bSpec.Shape, Sharding: half}})
			if !errors.Is(err, ifrt.ErrFailedPrecondition) {
				t.Errorf("reading bf16 as f32: %v; want FAILED_PRECONDITION", err)
			}
			_, err = c.ReadArrays(ctx, location, []string{"missing"}, []ifrt.ArraySpec{bSpec})
			if !errors.Is(err, ifrt.ErrNotFound) {
				t.Errorf("reading a missing array: %v; want NOT_FOUND", err)
			}
		})
	}
}

// TestPersistLostWorker: storing an array one of whose workers is lost fails
// with DATA_LOSS, as every use of its data does.
func TestPersistLostWorker(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 2, NoProxy: true})
	ctx := testContext(t)
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sharding, _ := ifrt.NewTiledSharding(c.Devices(), 4)
	a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: sharding}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	location := "file://" + t.TempDir()
	for {
		err = c.WriteArrays(ctx, location, []string{"a"}, []ifrt.Array{a})
		if err != nil || ctx.Err() != nil {
			break
		}
		time.Sleep(10 * time.Millisecond) // the client has not noticed yet
	}
	if !errors.Is(err, ifrt.ErrDataLoss) {
		t.Fatalf("storing an array of a lost worker: %v; want DATA_LOSS", err)
	}
}
