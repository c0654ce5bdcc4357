package worker_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy/proxyserver"
	"github.com/openpathways/pathways/worker"
)

// TestSuspendWhileTheClientDeletes: a client's delete reaches a worker after
// its suspension has taken stock of the arrays to save (deletes still run
// while the worker is paused). The suspension saves the rest and succeeds;
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

	var hooked atomic.Bool
	defer worker.SetBeforeSave(func(held []proxyserver.HeldArray) {
		hooked.Store(true)
		doomed.Delete()
		for deleted := 0; deleted < len(slice1); {
			deleted = 0
			for _, h := range held {
				if h.Array.IsDeleted() {
					deleted++
				}
			}
			if ctx.Err() != nil {
				return
			}
			time.Sleep(time.Millisecond)
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
