package cluster_test

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// watchGate holds back the events of the RM watch streams it intercepts, so
// that a test can make a client's watch lag behind the RM.
type watchGate struct {
	mu   sync.Mutex
	held chan struct{} // nil while events flow; closed on release
}

func (g *watchGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = make(chan struct{})
	}
}

func (g *watchGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		close(g.held)
		g.held = nil
	}
}

func (g *watchGate) wait(ctx context.Context) {
	g.mu.Lock()
	held := g.held
	g.mu.Unlock()
	if held != nil {
		select {
		case <-held:
		case <-ctx.Done():
		}
	}
}

func (g *watchGate) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != rmpb.ResourceManager_Watch_FullMethodName {
		return s, err
	}
	return &gatedStream{ClientStream: s, gate: g}, nil
}

type gatedStream struct {
	grpc.ClientStream
	gate *watchGate
}

func (s *gatedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	s.gate.wait(s.Context())
	return err
}

// waitRMSliceState waits until the RM reports slice i in state.
func waitRMSliceState(t *testing.T, ctx context.Context, addr string, i int, state rm.SliceState) {
	t.Helper()
	for {
		view, err := rmClusterView(ctx, addr)
		if err == nil && view.Slices[i].State == state {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the RM never reported slice %d %v (last error %v)", i, state, err)
		default:
		}
		sleepBriefly()
	}
}

// TestResumeUnheardByTheWatch: a slice is preempted, suspended and resumed
// on a replacement while a client's watch lags behind the RM — it heard
// nothing of it, or only that the slice was suspended. The client's arrays
// on that slice still read back bit-exact: before it calls a shard lost it
// asks the RM what became of its slice.
func TestResumeUnheardByTheWatch(t *testing.T) {
	for _, tc := range []struct {
		name  string
		heard rm.SliceState // what the client's watch delivers before it stalls
	}{
		{"nothing", rm.SliceActive},
		{"suspended", rm.SliceSuspended},
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

			if tc.heard == rm.SliceActive {
				gate.hold()
			}
			if err := l.PreemptWorker(ctx, 1); err != nil {
				t.Fatalf("PreemptWorker: %v", err)
			}
			if tc.heard == rm.SliceSuspended {
				waitSliceState(t, ctx, c, 1, rm.SliceSuspended)
				gate.hold()
			}
			waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceSuspended)
			if err := l.StartWorker(ctx, 1); err != nil {
				t.Fatal(err)
			}
			waitRMSliceState(t, ctx, l.RMAddress, 1, rm.SliceActive)
			arrays.check(t, ctx, "resumed on a replacement, unheard by the watch")
			runDouble(t, ctx, c, arrays.arrays[0])
		})
	}
}
