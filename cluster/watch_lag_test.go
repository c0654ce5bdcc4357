package cluster_test

import (
	"errors"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
)

// TestWatchLagsBehindAWorkerThatLeft: the client's watch delivers, late, a
// worker's registration after that worker has left again. Dialling it must
// not hold back the events behind it: here the loss of another slice, which
// fails the session (one lost slice allowed, two lost).
func TestWatchLagsBehindAWorkerThatLeft(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 3, DevicesPerSlice: 2, NoProxy: true})
	ctx := testenv.Context(t, defaultTestTimeout)
	var gate watchGate
	defer gate.release()
	c, err := cluster.Connect(ctx, l.RMAddress, cluster.WithLogger(quietLogger()), cluster.WithElasticSlices(1),
		cluster.WithDialOptions(grpc.WithChainStreamInterceptor(gate.intercept)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := putOn(ctx, c, 2); err != nil {
		t.Fatal(err)
	}

	gate.hold()
	// Slice 2's worker leaves, a replacement registers and leaves too: the
	// watch has queued its registration (at an address nobody listens on
	// once it left) and both losses.
	if err := l.StopWorker(2); err != nil {
		t.Fatal(err)
	}
	if err := l.StartWorker(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if err := l.StopWorker(2); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, "putting on slice 2 once its replacement left", func() error {
		_, err := putOn(ctx, c, 2)
		return wantCode(err, ifrt.ErrDataLoss)
	})
	if err := l.StopWorker(1); err != nil {
		t.Fatal(err)
	}
	gate.release()

	select {
	case <-c.Failed():
	case <-ctx.Done():
		t.Fatal("the session did not fail with slices 1 and 2 lost and 1 allowed: the watch is stuck behind a dial")
	}
	if !errors.Is(c.Err(), ifrt.ErrUnavailable) {
		t.Errorf("Err = %v, want UNAVAILABLE", c.Err())
	}
}
