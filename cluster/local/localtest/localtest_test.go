package localtest_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestFaultsOnSlicesThatAreNot: stopping or starting a worker that is not
// there is an error, never a panic.
func TestFaultsOnSlicesThatAreNot(t *testing.T) {
	ctx := testenv.Context(t, 60*time.Second)
	c, err := localtest.Start(ctx, local.Config{Slices: 1, DevicesPerSlice: 1, NoProxy: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, slice := range []int{-1, 1} {
		if err := c.StopWorker(slice); err == nil {
			t.Errorf("StopWorker(%d) of a 1-slice cluster succeeded", slice)
		}
		if err := c.StartWorker(ctx, slice); err == nil {
			t.Errorf("StartWorker(%d) of a 1-slice cluster succeeded", slice)
		}
		if w := c.Worker(slice); w != nil {
			t.Errorf("Worker(%d) of a 1-slice cluster = %v", slice, w)
		}
	}
	if err := c.StartWorker(ctx, 0); err == nil {
		t.Error("StartWorker of a running worker succeeded")
	}
	if err := c.StopWorker(0); err != nil {
		t.Fatalf("StopWorker(0): %v", err)
	}
	if err := c.StopWorker(0); err == nil {
		t.Error("StopWorker of a stopped worker succeeded")
	}
	if w := c.Worker(0); w != nil {
		t.Error("Worker(0) of a stopped worker is not nil")
	}
	if err := c.StartWorker(ctx, 0); err != nil {
		t.Fatalf("StartWorker(0) after StopWorker: %v", err)
	}
	if c.Worker(0) == nil {
		t.Error("Worker(0) after StartWorker is nil")
	}
}
