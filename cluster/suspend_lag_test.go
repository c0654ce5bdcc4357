package cluster_test

import (
	"context"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/cluster/local/localtest"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// watchGate holds back the events of the RM watch streams it intercepts, so
// that a test can make a client's watch lag behind the RM.
type watchGate struct {
	mu   sync.Mutex
	held chan struct{} // nil while events flow; closed on release
	// done is the epoch of the last event the client finished with (it
	// asked for the next one); moved signals each change of it.
	done, delivered uint64
	moved           chan struct{}
	// holdAfter, when set, holds the events after the first it matches.
	holdAfter func(*rmpb.WatchEvent) bool
}

// connectGated connects to the RM at addr with its watch streams through a
// new gate, released when the test ends (before the client closes).
func connectGated(t *testing.T, addr string) (*cluster.Client, *watchGate) {
	t.Helper()
	g := &watchGate{}
	c := connect(t, addr, cluster.WithDialOptions(grpc.WithChainStreamInterceptor(g.intercept)))
	t.Cleanup(g.release)
	return c, g
}

func (g *watchGate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = make(chan struct{})
	}
}

// holdAfterState holds the events after the first that tells of slice i
// in state.
func (g *watchGate) holdAfterState(i int, state rmpb.SliceState) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.holdAfter = func(ev *rmpb.WatchEvent) bool {
		return ev.GetType() == rmpb.WatchEvent_TYPE_SLICE_STATE && int(ev.GetSliceIndex()) == i && ev.GetSlice().GetState() == state
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
	s.gate.finished()
	err := s.ClientStream.RecvMsg(m)
	s.gate.wait(s.Context())
	if ev, ok := m.(*rmpb.WatchEvent); ok && err == nil {
		s.gate.mu.Lock()
		s.gate.delivered = max(s.gate.delivered, ev.GetEpoch())
		if s.gate.holdAfter != nil && s.gate.holdAfter(ev) {
			s.gate.holdAfter = nil
			s.gate.held = make(chan struct{})
		}
		s.gate.mu.Unlock()
	}
	return err
}

// finished records that the client is done with every event delivered so
// far: the watch asks for the next event only after it applied the last.
func (g *watchGate) finished() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.delivered > g.done {
		g.done = g.delivered
		if g.moved != nil {
			close(g.moved)
			g.moved = nil
		}
	}
}

// caughtUp waits until the client applied every event up to epoch.
func (g *watchGate) caughtUp(t *testing.T, ctx context.Context, epoch uint64) {
	t.Helper()
	for {
		g.mu.Lock()
		if g.done >= epoch {
			g.mu.Unlock()
			return
		}
		if g.moved == nil {
			g.moved = make(chan struct{})
		}
		moved := g.moved
		g.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			t.Fatalf("the client's watch never applied the RM's events up to epoch %d", epoch)
		}
	}
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

// startSuspendable starts 2 slices of 4 devices whose workers save to a
// scratch directory of the test's, and returns the scratch URL too.
func startSuspendable(t *testing.T) (*localtest.Cluster, string) {
	t.Helper()
	scratch := "file://" + t.TempDir()
	return startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true, ScratchLocation: scratch}), scratch
}
