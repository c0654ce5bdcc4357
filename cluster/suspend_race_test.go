package cluster_test

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy/proxypb"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// TestLaggingWatchCatchesUp: a client's watch lags while a slice is
// preempted, suspended and resumed on a replacement: it heard nothing of it,
// or only that the slice was suspending or suspended. The client's arrays on
// that slice still read back bit-exact (before it calls a shard lost it asks
// the RM what became of its slice, dials the replacement and has it read them
// back). Then the watch delivers the stale news, the old worker lost and the
// replacement joined, which must not take the link to the replacement down:
// the arrays read back still work (before the fix: "worker of slice 1 host 0
// was lost", the e2e flake's message).
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
			l, _ := startSuspendable(t)
			ctx := testContext(t)
			c, gate := connectGated(t, l.RMAddress)
			arrays := makeSuspendArrays(t, ctx, c)

			if tc.heard == rmpb.SliceState_SLICE_ACTIVE {
				gate.hold()
			} else {
				gate.holdAfterState(1, tc.heard)
			}
			view := replaceSlice1(t, ctx, l)
			arrays.check(t, ctx, "resumed, unheard by the watch")

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
	l, _ := startSuspendable(t)
	ctx := testContext(t)
	var watch watchGate
	var asks clusterGate
	defer watch.release()
	defer asks.release()
	c := connect(t, l.RMAddress, cluster.WithDialOptions(grpc.WithChainStreamInterceptor(watch.intercept), grpc.WithChainUnaryInterceptor(asks.intercept)))
	arrays := makeSuspendArrays(t, ctx, c)

	watch.hold()
	asks.hold() // the redial asks the RM only once the replacement is in
	view := replaceSlice1(t, ctx, l)
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

// TestStaleSnapshotLeavesTheLink: the watch's first snapshot, taken while
// the slice's first worker was live, reaches the client only after the
// slice was preempted, suspended and resumed on a replacement that the link
// redialled on its own. The snapshot is older than what the link acted on:
// it must not take the link back to the first worker's address (which lost
// the session the arrays were read back into).
func TestStaleSnapshotLeavesTheLink(t *testing.T) {
	l, _ := startSuspendable(t)
	ctx := testContext(t)
	var watch watchGate
	defer watch.release()
	// From the start, the first snapshot waits too: Connect asks the RM
	// without a watch of its own.
	watch.hold()
	c := connect(t, l.RMAddress, cluster.WithoutWaitingForSlices(), cluster.WithDialOptions(grpc.WithChainStreamInterceptor(watch.intercept)))
	arrays := makeSuspendArrays(t, ctx, c)
	view := replaceSlice1(t, ctx, l)
	arrays.check(t, ctx, "resumed, before the watch told anything")
	watch.release()
	if err := cluster.Watching(ctx, c); err != nil {
		t.Fatal(err)
	}
	watch.caughtUp(t, ctx, view.Epoch)
	arrays.check(t, ctx, "after the stale snapshot and the events after it")
	runDouble(t, ctx, c, arrays.arrays[0])
}

// replaceSlice1 preempts the worker of slice 1, which suspends the slice,
// starts its replacement, waits until the slice is active again and returns
// the RM's view then.
func replaceSlice1(t *testing.T, ctx context.Context, l *localtest.Cluster) *rm.Cluster {
	t.Helper()
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
	return view
}

// sendGate holds the first CopyToHostBufferRequest a client sends to a
// worker until released: the operation took its shards, and its request
// reaches the worker only after the worker left.
type sendGate struct {
	caught  chan struct{} // closed once the request is held
	release chan struct{}
	once    sync.Once
}

func newSendGate() *sendGate {
	return &sendGate{caught: make(chan struct{}), release: make(chan struct{})}
}

func (g *sendGate) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != proxypb.GrpcIfrtService_IfrtSession_FullMethodName {
		return s, err
	}
	return &heldSend{ClientStream: s, gate: g}, nil
}

type heldSend struct {
	grpc.ClientStream
	gate *sendGate
}

func (s *heldSend) SendMsg(m any) error {
	if req, ok := m.(*proxypb.IfrtRequest); ok && req.GetCopyToHostBufferRequest() != nil {
		s.gate.once.Do(func() {
			close(s.gate.caught)
			<-s.gate.release
		})
	}
	return s.ClientStream.SendMsg(m)
}

// TestOperationAcrossAPreemption: an operation took its shards on a slice
// while its worker was there, and fails after the worker saved them and
// left (the client's watch lags, so the client has heard of nothing). That
// is UNAVAILABLE, as for any operation on a suspended slice (the arrays come
// back), not DATA_LOSS.
func TestOperationAcrossAPreemption(t *testing.T) {
	l, _ := startSuspendable(t)
	ctx := testContext(t)
	var watch watchGate
	defer watch.release()
	sends := newSendGate()
	c := connect(t, l.RMAddress, cluster.WithDialOptions(grpc.WithChainStreamInterceptor(watch.intercept, sends.intercept)))
	arrays := makeSuspendArrays(t, ctx, c)

	watch.hold()
	read := make(chan error, 1)
	go func() {
		read <- arrays.arrays[0].CopyToHostBuffer(ctx, make([]byte, len(arrays.want[0])), nil)
	}()
	select {
	case <-sends.caught:
	case <-ctx.Done():
		t.Fatal("the read never reached the worker")
	}
	if err := l.PreemptWorker(ctx, 1); err != nil {
		t.Fatalf("PreemptWorker: %v", err)
	}
	close(sends.release)
	if err := <-read; ifrt.CodeOf(err) != ifrt.Unavailable {
		t.Fatalf("a read across the preemption: %v, want UNAVAILABLE", err)
	}
	if err := l.StartWorker(ctx, 1); err != nil {
		t.Fatal(err)
	}
	waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
	arrays.check(t, ctx, "resumed on a replacement")
}
