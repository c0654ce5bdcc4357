package cluster_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/ifrt/backend"
	"github.com/openpathways/pathways/internal/testenv"
)

// The outputs a client releases between launches of a program spanning
// workers travel with its next launch, and the workers free them: after a
// loop that releases every launch's output, each worker holds only its shards
// of the argument. A worker that ignored what a launch carries would keep
// every output shard the loop made, as the client sends them nowhere else.
func TestGangLaunchCarriesReleases(t *testing.T) {
	var bs backends
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, NewBackend: bs.new})
	ctx := testenv.Context(t, defaultTestTimeout)
	c := l.Client
	devs := c.Devices()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(tinyManual(8))}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Delete()
	s, err := ifrt.NewTiledSharding(devs, 8)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(0, 1, 2, 3, 4, 5, 6, 7), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := f32Bytes(0, 1, 4, 9, 16, 25, 36, 49)
	for i := range 20 {
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
		got := make([]byte, len(want))
		if err := res.Outputs[0].CopyToHostBuffer(ctx, got, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("launch %d: x*x = %v, want %v", i, got, want)
		}
		backend.Release(res.Outputs[0])
	}
	for slice := range 2 {
		for bs.liveArrays(slice) != 4 {
			if ctx.Err() != nil {
				t.Fatalf("slice %d's worker holds %d arrays after every output was released; want its 4 shards of the argument", slice, bs.liveArrays(slice))
			}
			time.Sleep(time.Millisecond)
		}
	}
}
