package cluster_test

import (
	"runtime/debug"
	"testing"

	"github.com/openpathways/pathways/cluster/local"
)

// TestDeleteWhileSuspended: arrays deleted while their slice is suspended
// are freed on its worker once it resumes (JAX deletes arrays whenever their
// Python objects go, preempted or not); the arrays kept read back
// bit-exact. The client sent no delete while the slice was suspended, so the
// worker took every array back on resume and held it until the client's
// garbage collector happened to release the forgotten handles.
func TestDeleteWhileSuspended(t *testing.T) {
	// No garbage collection: it would free what the client forgot and
	// hide the leak.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var bs backends
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: "file://" + t.TempDir(), NewBackend: bs.new})
	ctx := testContext(t)
	c := l.Client
	doomed := makeSuspendArrays(t, ctx, c)
	kept := makeSuspendArrays(t, ctx, c)
	doomed.check(t, ctx, "before")
	kept.check(t, ctx, "before")
	held := bs.liveArrays(1) / 2 // each set's shards on slice 1
	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatal(err)
	}
	for _, a := range doomed.arrays {
		if err := a.Delete().Await(ctx); err != nil {
			t.Fatalf("Delete while suspended: %v", err)
		}
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatal(err)
	}
	kept.check(t, ctx, "resumed")
	for bs.liveArrays(1) != held {
		select {
		case <-ctx.Done():
			t.Fatalf("slice 1's worker holds %d arrays after the resume; want the %d of the arrays kept", bs.liveArrays(1), held)
		default:
		}
		sleepBriefly()
	}
}
