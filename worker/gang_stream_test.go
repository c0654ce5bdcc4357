package worker_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/golden"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker/workerpb"
)

// A Launches stream ends each launch as a Launch call's context would: a
// cancel message ends a launch that would never finish, its timeout ends
// another, and a refused launch fails alone, each answered on the stream
// that goes on carrying launches.
func TestLaunchStreamCancelAndTimeout(t *testing.T) {
	ctx, s, client, gang := startGangSession(t)
	prog, err := gang.Compile(ctx, &workerpb.GangCompileRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), Module: []byte(golden.StuckAllReduce)})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	// Both partitions on this worker's two devices: partition 1 never
	// finishes, so partition 0 waits for it in its all_reduce. The arguments
	// stay reachable to the end: the proxy client destroys an unreachable
	// array on the server.
	var arguments []ifrt.Array
	defer runtime.KeepAlive(&arguments)
	stuck := func(id uint64) *workerpb.LaunchRequest {
		req := &workerpb.LaunchRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), ProgramId: prog.GetProgramId(),
			LaunchId: id, PartitionWorkers: []string{s.addr, s.addr}}
		for p, dev := range client.AddressableDevices()[:2] {
			a, err := client.MakeArrayFromHostBuffer(ctx, make([]byte, 12), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{3}, Sharding: ifrt.NewSingleDeviceSharding(dev, "")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Ready().Await(ctx); err != nil { // the server holds it
				t.Fatal(err)
			}
			arguments = append(arguments, a)
			var in proxy.ArrayHandle
			a.As(&in)
			out, err := client.ReserveHandle()
			if err != nil {
				t.Fatal(err)
			}
			req.Partitions = append(req.Partitions, &workerpb.LocalPartition{Partition: int32(p), DeviceId: int32(dev.ID), Arguments: []uint64{uint64(in)}, Outputs: []uint64{uint64(out)}})
		}
		return req
	}
	stream, err := gang.Launches(ctx)
	if err != nil {
		t.Fatal(err)
	}
	send := func(m *workerpb.LaunchStreamRequest) {
		t.Helper()
		if err := stream.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	send(&workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Launch{Launch: stuck(1)}})
	send(&workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Launch{Launch: stuck(2)}, TimeoutNanos: int64(50 * time.Millisecond)})
	wrongToken := stuck(3)
	wrongToken.SessionToken = "wrong"
	send(&workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Launch{Launch: wrongToken}})
	codes := map[uint64]ifrt.Code{}
	receive := func(n int) {
		t.Helper()
		for len(codes) < n {
			res, err := stream.Recv()
			if err != nil {
				t.Fatalf("the stream ended with %v; results so far %v", err, codes)
			}
			codes[res.GetLaunchId()] = ifrt.Code(res.GetCode())
		}
	}
	// Launches 2 and 3 end on their own; launch 1, read before them, is
	// then under way and can only end by the cancel.
	receive(2)
	if _, ok := codes[1]; ok {
		t.Fatalf("the stuck launch ended before its cancel: %v", codes)
	}
	send(&workerpb.LaunchStreamRequest{Request: &workerpb.LaunchStreamRequest_Cancel{Cancel: 1}})
	receive(3)
	if codes[1] != ifrt.Canceled {
		t.Errorf("the cancelled launch ended with %v, want CANCELLED", codes[1])
	}
	if codes[2] == ifrt.OK {
		t.Errorf("the launch past its timeout succeeded")
	}
	if codes[3] != ifrt.NotFound {
		t.Errorf("the launch with a wrong session token ended with %v, want NOT_FOUND", codes[3])
	}
}
