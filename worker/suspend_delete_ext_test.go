package worker_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/worker"
)

// TestSuspendWhileTheClientDeletes: a client's delete, sent before the
// suspension began, reaches a worker after its suspension has taken stock
// of the arrays to save (deletes still run while the worker is paused). The suspension saves the rest and succeeds;
// before the fix it failed with "array has been deleted or donated" (the
// flake of TestGangLaunchOverASuspendedSlice, whose test deletes a result).
func TestSuspendWhileTheClientDeletes(t *testing.T) {
	ctx := testenv.Context(t, defaultTestTimeout)
	l, err := local.Start(ctx, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true,
		ScratchLocation: "file://" + t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := l.Client
	slice1 := c.Devices()[4:8]
	tiled, err := ifrt.NewTiledSharding(slice1, 4)
	if err != nil {
		t.Fatal(err)
	}
	spec := ifrt.ArraySpec{DType: ifrt.U8, Shape: ifrt.Shape{8}, Sharding: tiled}
	doomedData, keptData := []byte("doomed!!"), []byte("kept....")
	doomed, err := c.MakeArrayFromHostBuffer(ctx, doomedData, spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := c.MakeArrayFromHostBuffer(ctx, keptData, spec, nil)
	if err != nil {
		t.Fatal(err)
	}

	for _, a := range []ifrt.Array{doomed, kept} {
		// The worker holds both once they read back (puts are asynchronous).
		if err := a.CopyToHostBuffer(ctx, make([]byte, 8), nil); err != nil {
			t.Fatal(err)
		}
	}

	var hooked atomic.Bool
	// The client's delete reaches the worker after the suspension took
	// stock: the hook deletes the doomed array's shards on the worker as
	// the proxy server does for a DeleteArray. (The client itself sends
	// no delete while it knows the slice is suspending.)
	defer worker.SetBeforeSave(func(held []proxyserver.HeldArray) {
		hooked.Store(true)
		deleted := 0
		for _, h := range held {
			got, err := ifrt.ArrayBytes(ctx, h.Array)
			if err == nil && len(got) == 2 && bytes.Contains(doomedData, got) && !bytes.Contains(keptData, got) {
				h.Array.Delete()
				deleted++
			}
		}
		if deleted != len(slice1) {
			t.Errorf("the suspension took stock of %d of the doomed array's shards, want %d", deleted, len(slice1))
		}
	})()
	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatalf("SuspendSlice with a delete arriving during it: %v", err)
	}
	if !hooked.Load() {
		t.Fatal("the suspension saved nothing: the test tested nothing")
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}
	got := make([]byte, len(keptData))
	if err := kept.CopyToHostBuffer(context.Background(), got, nil); err != nil {
		t.Fatalf("reading the array kept through the suspension: %v", err)
	}
	if !bytes.Equal(got, keptData) {
		t.Errorf("the kept array reads %q after the resume, want %q", got, keptData)
	}
}
