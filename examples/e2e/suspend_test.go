package e2e

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
)

// TestSuspendOnPreemption runs a JAX script against worker processes and,
// between two of its steps, preempts the worker of slice 1: its notice file
// is written and it gets SIGTERM, so it suspends its slice (saving its
// arrays to the scratch directory) and exits; a replacement process starts
// and the slice resumes on its own. The script's arrays (f32 sharded, bf16
// replicated, int32) read back bit-exact and its jitted step runs again,
// with nothing done about it in the script.
func TestSuspendOnPreemption(t *testing.T) {
	skipShort(t)
	testenv.ForEachJAX(t, func(t *testing.T, jax testenv.JAX) {
		ctx := testenv.Context(t, testTimeout)
		c := startCluster(t, ctx, "gocpu")
		dir := t.TempDir()
		notice := filepath.Join(dir, "preempted")
		flags := []string{"--gcs_scratch_location=file://" + filepath.Join(dir, "scratch"), "--preemption_notice_file=" + notice}
		c.workers[1].stop(t) // no notice: it leaves, holding nothing yet
		c.startWorker(1, flags...)

		rmc, err := rm.NewClient(c.rmAddr)
		if err != nil {
			t.Fatal(err)
		}
		defer rmc.Close()
		out, _ := c.runJAX(jax.Python, "suspend_cluster.py", func(step string) {
			if err := os.WriteFile(notice, []byte("TERMINATE_ON_HOST_MAINTENANCE\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.workers[1].stop(t)
			delete(c.workers, 1)
			view, err := rmc.Cluster(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if s := view.Slices[1]; s.State != rm.SliceSuspended || s.SuspendReason != "preemption" || !s.AutoResume {
				t.Errorf("after the preempted worker left, slice 1 is %+v; want SUSPENDED for preemption, resuming on its own", s)
			}
			if err := os.Remove(notice); err != nil {
				t.Fatal(err)
			}
			c.startWorker(1, flags...)
			for {
				view, err := rmc.Cluster(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if view.Slices[1].State == rm.SliceActive {
					return
				}
				select {
				case <-ctx.Done():
					t.Fatalf("slice 1 did not resume: %+v", view.Slices[1])
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
		check := checker(t, out)
		check("step1", "true")
		check("x_after", "true")
		check("w_after", "true")
		check("k_after", "true")
		check("y_after", "true")
		check("step2", "true")
		check("done", "true")
		if raw, ok := out["failed"]; ok {
			t.Errorf("the script failed after the resume: %s", raw)
		}
	})
}
