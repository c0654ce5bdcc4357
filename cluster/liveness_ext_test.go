package cluster_test

import (
	"fmt"
	"net"
	"sync"
	"testing"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/rm"
)

// TestDialEndedByAnOlderWorkersLoss: the watch reports a new worker for a
// host (the client drops its session and dials it), then, before that dial
// ends, the loss of an older worker of the host, which ends the dial and
// dials nobody. The link must not stay down: it asks the RM and comes back
// to the worker the RM lists as live. (Under load, the RM can report a
// worker's loss after its replacement registered.)
func TestDialEndedByAnOlderWorkersLoss(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 1, NoProxy: true})
	ctx := testContext(t)
	c := connect(t, l.RMAddress)
	if err := cluster.Watching(ctx, c); err != nil {
		t.Fatal(err)
	}
	live := cluster.LinkedIncarnation(c, 1, 0)
	if live == "" {
		t.Fatal("slice 1's link is down after Connect")
	}
	// A worker that accepts connections and never answers: the dial to it
	// lasts until something ends it.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.WaitGroup
	held.Go(func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			conn, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, conn)
		}
	})
	defer held.Wait()
	defer silent.Close()

	cluster.ApplyWorkerEvent(ctx, c, rm.Worker{Slice: 1, Host: 0, Address: silent.Addr().String(), Incarnation: "silent", State: rm.StateLive})
	eventually(t, ctx, "dropping the session for the new worker", func() error {
		if inc := cluster.LinkedIncarnation(c, 1, 0); inc != "" {
			return fmt.Errorf("the link is still up to %q", inc)
		}
		return nil
	})
	cluster.ApplyWorkerEvent(ctx, c, rm.Worker{Slice: 1, Host: 0, Address: "127.0.0.1:1", Incarnation: "older", State: rm.StateLost, LostReason: "a test's stale report"})
	eventually(t, ctx, "coming back to the live worker", func() error {
		if inc := cluster.LinkedIncarnation(c, 1, 0); inc != live {
			return fmt.Errorf("the link is up to %q, want the live worker %q", inc, live)
		}
		return nil
	})
}
