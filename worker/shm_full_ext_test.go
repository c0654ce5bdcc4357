package worker_test

import (
	"context"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
	"github.com/openpathways/pathways/worker"
)

// TestSharedMemoryPoolFull runs an all-reduce across two workers whose
// shared-memory pool holds one segment: the frames that find it in use go
// over the connection, in frames no larger than the connection takes, and
// the sum is right.
func TestSharedMemoryPoolFull(t *testing.T) {
	defer worker.SetMaxSharedSegments(1)()
	const n = 6<<20 + 1 // 24 MiB of f32: several segments' worth each way
	ctx := context.Background()
	l, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	exe, x := communicatortest.ReplicatedAllReduce(ctx, t, l.Client, n, 977)
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	communicatortest.CheckAllReduce(ctx, t, res.Outputs[0], 2, 977)
}

// TestSharedMemoryPoolFullCopy copies an array from one worker to another
// whose reader's peer holds one segment: the chunks that find it in use come
// over the connection, within the reader's message limit.
func TestSharedMemoryPoolFullCopy(t *testing.T) {
	defer worker.SetMaxSharedSegments(1)()
	const n = 21<<20 + 3
	ctx := context.Background()
	l, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := l.Client
	devs := c.Devices()
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i % 253)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{n}, Sharding: ifrt.NewSingleDeviceSharding(devs[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.CopyArrays(ctx, []ifrt.Array{x}, ifrt.DeviceList{devs[1]}, nil, ifrt.AlwaysCopy)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, n)
	if err := out[0].CopyToHostBuffer(ctx, got, nil); err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if got[i] != data[i] {
			t.Fatalf("byte %d of the copy is %d, want %d", i, got[i], data[i])
		}
	}
}
