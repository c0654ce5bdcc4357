package worker_test

import (
	"context"
	"runtime"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker/workerpb"
)

// TestGatherPiecesAreBounded: one Gather with a piece of domain [2^40] made the
// worker allocate 4 TiB, and a piece naming localhost:1 made it dial there
// (issue 11, defect 2). Pieces are checked against the arrays they name and
// read only where they overlap the result; remote ones only from workers the
// RM lists.
func TestGatherPiecesAreBounded(t *testing.T) {
	s := startStandalone(t)
	ctx, cancel := context.WithTimeout(context.Background(), defaultTestTimeout)
	defer cancel()
	c, err := proxy.Dial(ctx, "grpc://"+s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h, err := c.ReserveHandle()
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.MakeArrayFromHostBuffer(ctx, make([]byte, 16), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{4}, Sharding: ifrt.NewSingleDeviceSharding(c.AddressableDevices()[0], "")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ah proxy.ArrayHandle
	if !a.As(&ah) {
		t.Fatal("no handle")
	}
	own := &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: uint64(ah)}
	dom := func(o, n int64) *workerpb.Domain { return &workerpb.Domain{Origin: []int64{o}, Shape: []int64{n}} }
	gather := func(p *workerpb.Piece) error {
		_, err := s.peer(t).Gather(ctx, &workerpb.GatherRequest{
			Result: &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: uint64(h)},
			Dtype:  int32(ifrt.F32), Domain: dom(0, 4), Pieces: []*workerpb.Piece{p}})
		return err
	}
	if err := gather(&workerpb.Piece{Array: own, Domain: dom(0, 1<<40)}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a local piece of domain [2^40] over an array of 4: %v, want INVALID_ARGUMENT", err)
	}
	if err := gather(&workerpb.Piece{WorkerAddress: "localhost:1", Array: own, Domain: dom(0, 4)}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("a piece on localhost:1: %v, want PERMISSION_DENIED", err)
	}
	noToken := &workerpb.ArrayRef{SessionId: c.SessionID(), Handle: uint64(ah)}
	if err := gather(&workerpb.Piece{Array: noToken, Domain: dom(0, 4)}); status.Code(err) != codes.NotFound {
		t.Errorf("a piece without its session's token: %v, want NOT_FOUND", err)
	}
	if err := gather(&workerpb.Piece{Array: own, Domain: dom(0, 4)}); err != nil {
		t.Errorf("a good piece: %v", err)
	}
	runtime.KeepAlive(a) // an unreachable proxy array is destructed on the server
}
