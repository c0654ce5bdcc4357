package rm_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
)

// TestWatchReportsUnreachableRM: while the RM cannot be reached, Watch yields
// each failure (and goes on), and the client logs the address and the error.
func TestWatchReportsUnreachableRM(t *testing.T) {
	ctx := testContext(t)
	n := &network{} // nothing listens
	logs := &testenv.SyncBuffer{}
	c, err := rm.NewClient("passthrough:///rm-at-nowhere", rm.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
		rm.WithDialOptions(n.dialOption()), rm.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	failures := 0
	for _, err := range c.Watch(ctx) {
		if err == nil {
			t.Fatal("an event from an RM that does not exist")
		}
		if !errors.Is(err, ifrt.ErrUnavailable) {
			t.Fatalf("Watch yielded %v, want UNAVAILABLE while the RM is unreachable", err)
		}
		if failures++; failures == 3 {
			break
		}
	}
	if failures != 3 {
		t.Fatalf("Watch ended after %d failures, want it to go on", failures)
	}
	if got := logs.String(); !strings.Contains(got, "address=passthrough:///rm-at-nowhere") || !strings.Contains(got, "connection refused") {
		t.Errorf("the log does not say which RM is unreachable and why:\n%s", got)
	}

	// Once an RM listens there, the watch works.
	startRM(t, n, rm.Config{InstanceType: "cpu:1", InstanceCount: 1})
	for ev, err := range c.Watch(ctx) {
		if err == nil {
			if ev.Type != rm.EventSnapshot {
				t.Fatalf("first event %v, want a snapshot", ev.Type)
			}
			break
		}
	}
}

// TestWatchNotAnRM: an address that serves something other than a resource
// manager (a worker's port, say) ends the watch with an error that says so.
func TestWatchNotAnRM(t *testing.T) {
	ctx := testContext(t)
	n := &network{}
	gs := grpc.NewServer()
	go gs.Serve(n.listen())
	defer gs.Stop()
	c := newClient(t, n)
	var errs []error
	for _, err := range c.Watch(ctx) {
		errs = append(errs, err)
	}
	if len(errs) != 1 || !errors.Is(errs[0], ifrt.ErrUnimplemented) || !strings.Contains(errs[0].Error(), "does not serve the resource manager's API") {
		t.Fatalf("Watch of a non-RM yielded %v, want one UNIMPLEMENTED error naming the problem", errs)
	}
}
