package cluster_test

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openpathways/pathways/rm"
)

// TestSuspendLocationsRemoved: what a suspension saved is deleted once no
// one can read it any more. A worker that took its own arrays back deletes
// them at once; the arrays a preempted worker saved stay while the
// replacement's clients may still read them back, and go when the slice is
// next suspended.
func TestSuspendLocationsRemoved(t *testing.T) {
	l, url := startSuspendable(t)
	scratch := strings.TrimPrefix(url, "file://")
	ctx := testContext(t)
	c := l.Client
	arrays := makeSuspendArrays(t, ctx, c)
	gen := func(n string) string { return filepath.Join(scratch, "suspend", "slice-1", n) }

	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatalf("SuspendSlice: %v", err)
	}
	if n := countFiles(t, gen("gen-1")); n == 0 {
		t.Fatalf("nothing saved under %s", gen("gen-1"))
	}
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}
	waitFiles(t, ctx, gen("gen-1"), "after the worker took its arrays back")
	arrays.check(t, ctx, "resumed on the same worker")

	if err := l.PreemptWorker(ctx, 1); err != nil {
		t.Fatalf("PreemptWorker: %v", err)
	}
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
	if n := countFiles(t, gen("gen-2")); n == 0 {
		t.Fatalf("the preempted worker's arrays are gone from %s before its replacement's clients read them back", gen("gen-2"))
	}
	arrays.check(t, ctx, "resumed on a replacement")

	if err := c.SuspendSlice(ctx, 1); err != nil {
		t.Fatalf("SuspendSlice: %v", err)
	}
	waitFiles(t, ctx, gen("gen-2"), "after the next suspension")
	if err := c.ResumeSlice(ctx, 1); err != nil {
		t.Fatalf("ResumeSlice: %v", err)
	}
	waitFiles(t, ctx, gen("gen-3"), "after the replacement took its arrays back")
	arrays.check(t, ctx, "suspended and resumed again")
}

// countFiles counts the files under dir.
func countFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitFiles waits until no file is left under dir.
func waitFiles(t *testing.T, ctx context.Context, dir, when string) {
	t.Helper()
	for countFiles(t, dir) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %d files are left under %s", when, countFiles(t, dir), dir)
		default:
		}
		sleepBriefly()
	}
}
