package sidecar_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/sidecar"
)

// TestInteropColocatedSessions runs two JAX clients at once through one proxy
// server of a two-slice cluster, each with a colocated counter: the counters
// count apart, each host's sidecar holds one counter in each client's
// session, the client that exits has its counter freed there, and the other
// client's counter goes on counting.
func TestInteropColocatedSessions(t *testing.T) { forEachJAX(t, testInteropColocatedSessions) }

func testInteropColocatedSessions(t *testing.T, py string) {
	cl, procs := startColocatedCluster(t, py)

	stays := startJAX(t, py, cl.ProxyAddress, "colocated_sessions.py", []string{"--bumps", "2", "--wait"})
	leaves := startJAX(t, py, cl.ProxyAddress, "colocated_sessions.py", []string{"--bumps", "3", "--wait"})
	stays.until("waiting")
	leaves.until("waiting")
	if diff := cmp.Diff([][]float64{{1, 1}, {2, 2}}, field[[][]float64](t, stays.out, "counts")); diff != "" {
		t.Errorf("the counter of the client that stays (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]float64{{1, 1}, {2, 2}, {3, 3}}, field[[][]float64](t, leaves.out, "counts")); diff != "" {
		t.Errorf("the counter of the client that leaves (-want +got):\n%s", diff)
	}
	checkObjects(t, procs, []int{1, 1}, "with both clients running")

	leaves.send("go")
	if diff := cmp.Diff([]float64{4, 4}, field[[]float64](t, leaves.wait(), "after")); diff != "" {
		t.Errorf("the leaving client's last count (-want +got):\n%s", diff)
	}
	// Its sessions end on the workers once its cluster client is closed, a
	// moment after its stream ends.
	checkObjects(t, procs, []int{1}, "after one client left")

	stays.send("go")
	if diff := cmp.Diff([]float64{3, 3}, field[[]float64](t, stays.wait(), "after")); diff != "" {
		t.Errorf("the remaining client's counter after the other left (-want +got):\n%s", diff)
	}
	checkObjects(t, procs, nil, "after both clients left")
}

// checkObjects checks that the sessions holding colocated objects in each
// sidecar hold as many as want says (in increasing order), polling for up to
// a minute since sessions end a moment after their clients.
func checkObjects(t *testing.T, procs []*sidecar.Process, want []int, when string) {
	t.Helper()
	ctx := testenv.Context(t, time.Minute)
	for i, p := range procs {
		for {
			stats, err := p.Sessions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var held []int
			for _, s := range stats {
				if s.Objects > 0 {
					held = append(held, s.Objects)
				}
			}
			slices.Sort(held)
			if slices.Equal(held, want) {
				break
			}
			select {
			case <-time.After(20 * time.Millisecond):
				continue
			case <-ctx.Done():
				t.Errorf("%s: host-%d's sidecar holds objects %v by session (%v), want %v", when, i, held, stats, want)
			}
			break
		}
	}
}
