package worker_test

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/testenv"
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
	ctx := testenv.Context(t, defaultTestTimeout)
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

// TestGatherPlacesPieces gathers a [2, 6] u8 result from pieces of this
// worker: row halves (each received in place), column halves (put in after
// they arrive), a row and the whole (overlapping, so one of them is put in
// after), each of whose bytes must land exactly; a gather whose
// last piece fails leaves no result array behind, and a piece of the wrong
// size is INVALID_ARGUMENT.
func TestGatherPlacesPieces(t *testing.T) {
	s := startStandalone(t)
	ctx, c := dialPeerTest(t, s)
	dev := c.AddressableDevices()[0]
	var keep []ifrt.Array
	defer func() { runtime.KeepAlive(keep) }() // keep as it is at the end, not the empty slice of now
	ref := func(data []byte, shape ifrt.Shape) *workerpb.ArrayRef {
		a, err := c.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.U8, Shape: shape, Sharding: ifrt.NewSingleDeviceSharding(dev, "")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		keep = append(keep, a)
		var h proxy.ArrayHandle
		if !a.As(&h) {
			t.Fatal("no handle")
		}
		return &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: uint64(h)}
	}
	dom := func(o0, o1, n0, n1 int64) *workerpb.Domain {
		return &workerpb.Domain{Origin: []int64{o0, o1}, Shape: []int64{n0, n1}}
	}
	want := []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	gather := func(pieces ...*workerpb.Piece) (*workerpb.ArrayRef, error) {
		h, err := c.ReserveHandle()
		if err != nil {
			t.Fatal(err)
		}
		result := &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: uint64(h)}
		_, err = s.peer(t).Gather(ctx, &workerpb.GatherRequest{Result: result, Dtype: int32(ifrt.U8), Domain: dom(0, 0, 2, 6), DeviceId: int32(dev.ID), Pieces: pieces})
		return result, err
	}
	rows := []*workerpb.Piece{
		{Array: ref(want[:6], ifrt.Shape{1, 6}), Domain: dom(0, 0, 1, 6)},
		{Array: ref(want[6:], ifrt.Shape{1, 6}), Domain: dom(1, 0, 1, 6)},
	}
	cols := []*workerpb.Piece{
		{Array: ref([]byte{0, 1, 2, 6, 7, 8}, ifrt.Shape{2, 3}), Domain: dom(0, 0, 2, 3)},
		{Array: ref([]byte{3, 4, 5, 9, 10, 11}, ifrt.Shape{2, 3}), Domain: dom(0, 3, 2, 3)},
	}
	for name, pieces := range map[string][]*workerpb.Piece{"rows": rows, "columns": cols, "a row and the whole": {rows[0], {Array: ref(want, ifrt.Shape{2, 6}), Domain: dom(0, 0, 2, 6)}}} {
		result, err := gather(pieces...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, err := readArray(ctx, s.peer(t), result); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: gathered %v (%v), want %v", name, got, err, want)
		}
	}
	missing := &workerpb.Piece{Array: &workerpb.ArrayRef{SessionId: c.SessionID(), SessionToken: c.SessionToken(), Handle: 1 << 40}, Domain: dom(1, 0, 1, 6)}
	result, err := gather(rows[0], missing)
	if status.Code(err) != codes.NotFound {
		t.Errorf("a gather with a missing piece: %v, want NOT_FOUND", err)
	}
	if _, err := readArray(ctx, s.peer(t), result); status.Code(err) != codes.NotFound {
		t.Errorf("the result of a failed gather: %v, want NOT_FOUND", err)
	}
	short := &workerpb.Piece{Array: ref(want[6:], ifrt.Shape{1, 6}), Domain: dom(1, 0, 1, 7)}
	if _, err := gather(rows[0], short); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a piece of 6 elements that says it holds 7: %v, want INVALID_ARGUMENT", err)
	}
}

// readArray reads the whole array ref names through a peer service.
func readArray(ctx context.Context, peer workerpb.PeerClient, ref *workerpb.ArrayRef) ([]byte, error) {
	stream, err := peer.ReadArray(ctx, &workerpb.ReadArrayRequest{Array: ref})
	if err != nil {
		return nil, err
	}
	var out []byte
	for {
		chunk, err := stream.Recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, chunk.GetData()...)
	}
}
