package cluster_test

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
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
			l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: "file://" + t.TempDir()})
			ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
			defer cancel()
			var gate watchGate
			defer gate.release()
			c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()), cluster.WithDialOptions(grpc.WithChainStreamInterceptor(gate.intercept)))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			all := c.Devices()
			exe := mustCompile(ctx, t, c, ifrt.DeviceList{all[0], all[2], all[4], all[6]})
			x := psumInput(t, ctx, c, exe)
			if err := launchPsum(ctx, c, exe, x); err != nil {
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
			err = launchPsum(ctx, c, exe, x)
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
			gate.release()
			if err := launchPsum(ctx, c, exe, x); err != nil {
				t.Fatalf("after the resume: %v", err)
			}
		})
	}
}

// psumInput is the psum program's input 0..7.
func psumInput(t *testing.T, ctx context.Context, c ifrt.Client, exe ifrt.LoadedExecutable) ifrt.Array {
	t.Helper()
	s, err := ifrt.NewHloSharding(exe.Devices(), "", *exe.Parameters()[0].OpSharding)
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.MakeArrayFromHostBuffer(ctx, f32Bytes(0, 1, 2, 3, 4, 5, 6, 7), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{8}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// launchPsum runs the psum program on x and checks its result.
func launchPsum(ctx context.Context, c ifrt.Client, exe ifrt.LoadedExecutable, x ifrt.Array) error {
	res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
	if err != nil {
		return err
	}
	defer res.Outputs[0].Delete()
	got := make([]byte, 8)
	if err := res.Outputs[0].CopyToHostBuffer(ctx, got, nil); err != nil {
		return err
	}
	if string(got) != string(f32Bytes(24, 32)) {
		return errors.New("psum gave a wrong result")
	}
	return nil
}
