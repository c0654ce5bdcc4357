package cluster_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/worker/workerpb"
)

// TestGangFailureOutlastsItsEchoes: the worker whose partition fails answers
// the client after its partner, which answers DATA_LOSS because it saw their
// exchange end before it learned why (a send that finds the stream ended says
// the peer was lost; the test makes the partner's answer that). The partner
// is still there, so its answer is an echo, and the launch fails with the
// failure's own code.
func TestGangFailureOutlastsItsEchoes(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	view, err := rmClusterView(ctx, l.RMAddress)
	if err != nil {
		t.Fatal(err)
	}
	var failing string // the worker of slice 1, which runs partition 3
	for _, w := range view.Workers {
		if w.Slice == 1 {
			failing = w.Address
		}
	}
	c := connect(t, l.RMAddress, cluster.WithDialOptions(grpc.WithChainStreamInterceptor(
		func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			s, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil || method != workerpb.Gang_Launches_FullMethodName {
				return s, err
			}
			return answersReordered{ClientStream: s, failing: cc.Target() == failing}, nil
		})))
	all := c.Devices()
	exe, err := c.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(oneFails)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{all[0], all[2], all[4], all[6]}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := psumInput(ctx, c, exe)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := exe.Execute(ctx, []ifrt.Array{x}, nil); ifrt.CodeOf(err) != ifrt.ResourceExhausted {
			t.Fatalf("one partition too large, its worker's answer last: %v (%v), want RESOURCE_EXHAUSTED", ifrt.CodeOf(err), err)
		}
	}
}

// answersReordered holds the failing worker's launch answers a moment, so
// that its partner's come first, and makes each failure the partner answers
// the DATA_LOSS of a worker that saw its peer's exchange end.
type answersReordered struct {
	grpc.ClientStream
	failing bool
}

func (s answersReordered) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	r, ok := m.(*workerpb.LaunchResult)
	switch {
	case !ok || err != nil || r.GetCode() == 0:
	case s.failing:
		time.Sleep(300 * time.Millisecond)
	default:
		r.Code, r.Message = int32(ifrt.DataLoss), "worker: the worker of partition 3 was lost: EOF"
	}
	return err
}
