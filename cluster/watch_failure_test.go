package cluster_test

import (
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/faultnet"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/rm"
	"github.com/openpathways/pathways/rm/rmpb"
)

// TestWatchFailureIsSticky: when the resource manager refuses the client's
// watch for good, the client used to stop watching with a log line and go on
// blind to workers coming and going. Its session now fails: Err says why and
// Failed is closed.
func TestWatchFailureIsSticky(t *testing.T) {
	ctx := testenv.Context(t, defaultTestTimeout)
	var refuse atomic.Bool
	refuseWatch := grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if refuse.Load() && info.FullMethod == rmpb.ResourceManager_Watch_FullMethodName {
			return rpc.ToStatus(ifrt.Errorf(ifrt.PermissionDenied, "this client may no longer watch"))
		}
		return h(srv, ss)
	})
	rms, err := rm.New(rm.Config{InstanceType: "cpu:2", InstanceCount: 1, Logger: quietLogger(), ServerOptions: []grpc.ServerOption{refuseWatch}})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go rms.Serve(lis)
	t.Cleanup(func() { rms.Close() })
	path, err := faultnet.Listen(lis.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { path.Close() })

	c, err := cluster.Connect(ctx, path.Addr(), cluster.WithLogger(quietLogger()), cluster.WithoutWaitingForSlices())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Err(); err != nil {
		t.Fatalf("a new client has failed: %v", err)
	}
	refuse.Store(true)
	path.Cut() // the watch reconnects, and is refused

	select {
	case <-c.Failed():
	case <-ctx.Done():
		t.Fatal("the client did not fail when the resource manager refused its watch")
	}
	if err := c.Err(); !errors.Is(err, ifrt.ErrPermissionDenied) {
		t.Errorf("Err() = %v, want PERMISSION_DENIED", err)
	}
	_, err = c.MakeArrayFromHostBuffer(ctx, f32Bytes(1, 2), ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{2}, Sharding: ifrt.NewSingleDeviceSharding(c.Devices()[0], "")}, nil)
	if !errors.Is(err, ifrt.ErrPermissionDenied) {
		t.Errorf("an operation after the failure = %v, want the failure", err)
	}
}
