package cluster_test

import (
	"context"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// TestLaggingWatchCatchesUp: a client's watch lags while a slice is
// preempted, suspended and resumed on a replacement; the client uses its
// arrays (it asks the RM, dials the replacement and has it read them back),
// and only then does the watch deliver the news: the old worker lost, the
// replacement joined. That stale news must not take the link to the
// replacement down: the arrays read back still work (the e2e flake's
// "worker of slice 1 host 0 was lost").
func TestLaggingWatchCatchesUp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		heard rmpb.SliceState // what the client's watch delivers before it stalls
	}{
		{"nothing", rmpb.SliceState_SLICE_ACTIVE},
		{"suspending", rmpb.SliceState_SLICE_SUSPENDING},
		{"suspended", rmpb.SliceState_SLICE_SUSPENDED},
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
			arrays := makeSuspendArrays(t, ctx, c)

			if tc.heard == rmpb.SliceState_SLICE_ACTIVE {
				gate.hold()
			} else {
				gate.holdAfterState(1, tc.heard)
			}
			if err := l.PreemptWorker(ctx, 1); err != nil {
				t.Fatalf("PreemptWorker: %v", err)
			}
			waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceSuspended)
			if err := l.StartWorker(ctx, 1); err != nil {
				t.Fatal(err)
			}
			waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
			arrays.check(t, ctx, "resumed, unheard by the watch")

			view, err := rmClusterView(ctx, l.RMAddress)
			if err != nil {
				t.Fatal(err)
			}
			gate.release()
			gate.caughtUp(t, ctx, view.Epoch)
			arrays.check(t, ctx, "after the watch caught up")
			runDouble(t, ctx, c, arrays.arrays[0])
		})
	}
}

// clusterGate holds back a client's calls of ResourceManager.GetCluster.
type clusterGate struct{ watchGate }

func (g *clusterGate) intercept(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	if method == rmpb.ResourceManager_GetCluster_FullMethodName {
		g.wait(ctx)
	}
	return invoker(ctx, method, req, reply, cc, opts...)
}

// TestRedialBeforeTheWatchTells: a client's watch lags while a slice is
// preempted, suspended and resumed on a replacement, and the link, redialling
// on its own after the old worker's session ended, comes up to the
// replacement first; only then does the watch tell of the suspension. The
// client still reads its arrays back from the session the old worker saved,
// not the replacement's.
func TestRedialBeforeTheWatchTells(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: "file://" + t.TempDir()})
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	defer cancel()
	var watch watchGate
	var asks clusterGate
	defer watch.release()
	defer asks.release()
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()), cluster.WithDialOptions(
		grpc.WithChainStreamInterceptor(watch.intercept), grpc.WithChainUnaryInterceptor(asks.intercept)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	arrays := makeSuspendArrays(t, ctx, c)

	watch.hold()
	asks.hold() // the redial asks the RM only once the replacement is in
	if err := l.PreemptWorker(ctx, 1); err != nil {
		t.Fatalf("PreemptWorker: %v", err)
	}
	waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceSuspended)
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
	view, err := rmClusterView(ctx, l.RMAddress)
	if err != nil {
		t.Fatal(err)
	}
	var replacement string
	for _, w := range view.Workers {
		if w.Slice == 1 && w.Host == 0 {
			replacement = w.Incarnation
		}
	}
	asks.release()
	for cluster.LinkedIncarnation(c, 1, 0) != replacement {
		select {
		case <-ctx.Done():
			t.Fatalf("the link never redialled the replacement %q", replacement)
		default:
		}
		sleepBriefly()
	}
	watch.release()
	watch.caughtUp(t, ctx, view.Epoch)
	arrays.check(t, ctx, "resumed, the link up to the replacement before the watch told")
}
