package cluster_test

import (
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/rm"
)

// TestGangLaunchOverASuspendedSlice: a gang launch spanning a slice that is
// suspended fails with UNAVAILABLE (the arrays come back; not DATA_LOSS, and
// no hang), whether the client heard of the suspension or its watch lags
// (the paused worker refuses the launch; or it has left, saved), and works
// again once the slice is resumed.
func TestGangLaunchOverASuspendedSlice(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lag   bool // the client's watch lags behind the RM
		leave bool // the slice's worker is preempted: it saves and leaves
	}{
		{"heard", false, false},
		{"unheard", true, false},
		{"unheard, worker gone", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := startSuspendable(t)
			ctx := testContext(t)
			c, gate := connectGated(t, l.RMAddress)
			all := c.Devices()
			exe := mustCompile(ctx, t, c, ifrt.DeviceList{all[0], all[2], all[4], all[6]})
			x, err := psumInput(ctx, c, exe)
			if err != nil {
				t.Fatal(err)
			}
			if err := launchPsum(ctx, exe, x); err != nil {
				t.Fatalf("before the suspension: %v", err)
			}

			if tc.lag {
				gate.hold()
			}
			switch {
			case tc.leave:
				if err := l.PreemptWorker(ctx, 1); err != nil {
					t.Fatalf("PreemptWorker: %v", err)
				}
			case tc.lag:
				rmc, err := rm.NewClient(l.RMAddress, rm.WithLogger(quietLogger()))
				if err != nil {
					t.Fatal(err)
				}
				defer rmc.Close()
				if _, err := rmc.SuspendSlice(ctx, 1, rm.SuspendOptions{Reason: "test"}); err != nil {
					t.Fatalf("SuspendSlice: %v", err)
				}
			default:
				if err := c.SuspendSlice(ctx, 1); err != nil {
					t.Fatalf("SuspendSlice: %v", err)
				}
			}
			err = launchPsum(ctx, exe, x)
			if ifrt.CodeOf(err) != ifrt.Unavailable {
				t.Fatalf("a launch over the suspended slice: %v, want UNAVAILABLE", err)
			}

			if tc.leave {
				if err := l.StartWorker(ctx, 1); err != nil {
					t.Fatal(err)
				}
				waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
			} else if err := c.ResumeSlice(ctx, 1); err != nil {
				t.Fatalf("ResumeSlice: %v", err)
			}
			if err := launchPsum(ctx, exe, x); err != nil {
				t.Fatalf("after the resume, the watch still lagging: %v", err)
			}
			gate.release()
		})
	}
}
