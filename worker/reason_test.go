package worker_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// TestPeerErrorKeepsItsSentinel: a peer read of an array its backend had
// deleted arrived as INVALID_ARGUMENT alone. The worker's status now says why,
// and errors.Is(err, ifrt.ErrArrayDeleted) holds on the reading side.
func TestPeerErrorKeepsItsSentinel(t *testing.T) {
	s := startStandalone(t)
	ctx, c := dialPeerTest(t, s)
	a, h := upload(t, ctx, c, 2)
	defer runtime.KeepAlive(a)
	backendArray, err := s.w.Proxy().SessionArray(ctx, c.SessionID(), c.SessionToken(), h, c.LastOpID())
	if err != nil {
		t.Fatal(err)
	}
	backendArray.Delete() // as a donation on the worker's side would
	if err := readOverPeer(t, ctx, s, c, h); !errors.Is(err, ifrt.ErrArrayDeleted) || !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("ReadArray of a deleted array = %v (code %v), want ErrArrayDeleted", err, ifrt.CodeOf(err))
	}
}
