package worker_test

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker/workerpb"
)

// TestPeerErrorKeepsItsSentinel: a peer read of an array its backend had
// deleted arrived as INVALID_ARGUMENT alone. The worker's status now says why,
// and errors.Is(err, ifrt.ErrArrayDeleted) holds on the reading side.
func TestPeerErrorKeepsItsSentinel(t *testing.T) {
	s := startStandalone(t)
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	defer cancel()
	c, err := proxy.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 8), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.KeepAlive(a)
	var h proxy.ArrayHandle
	if !a.As(&h) {
		t.Fatal("no handle")
	}
	backendArray, err := s.w.Proxy().SessionArray(ctx, c.SessionID(), c.SessionToken(), uint64(h))
	if err != nil {
		t.Fatal(err)
	}
	backendArray.Delete() // as a donation on the worker's side would

	stream, err := s.peer(t).ReadArray(ctx, &workerpb.ReadArrayRequest{Array: &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: uint64(h)}})
	if err == nil {
		_, err = stream.Recv()
	}
	if err := rpc.FromStatus(err); !errors.Is(err, ifrt.ErrArrayDeleted) || !errors.Is(err, ifrt.ErrInvalidArgument) {
		t.Errorf("ReadArray of a deleted array = %v (code %v), want ErrArrayDeleted", err, ifrt.CodeOf(err))
	}
}
