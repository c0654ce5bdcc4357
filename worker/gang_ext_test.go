package worker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/rpc"
	"github.com/openpathways/pathways/internal/testenv"
	"github.com/openpathways/pathways/proxy"
	"github.com/openpathways/pathways/worker"
	"github.com/openpathways/pathways/worker/workerpb"
)

const gangPsum = `module @psum attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %r = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
}`

// A gang program is compiled in a session and freed when the session ends;
// a launch that names workers and partitions wrongly is refused.
func TestGangProgramsGoWithTheirSession(t *testing.T) {
	ctx, s, client, gang := startGangSession(t)
	resp, err := gang.Compile(ctx, &workerpb.GangCompileRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), Module: []byte(gangPsum)})
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	if resp.GetNumPartitions() != 4 || len(resp.GetParameters()) != 1 || len(resp.GetOutputs()) != 1 {
		t.Errorf("Compile described %d partitions, %d parameters, %d outputs; want 4, 1, 1", resp.GetNumPartitions(), len(resp.GetParameters()), len(resp.GetOutputs()))
	}
	if _, err := gang.Compile(ctx, &workerpb.GangCompileRequest{SessionId: client.SessionID(), SessionToken: "wrong", Module: []byte(gangPsum)}); !errors.Is(rpc.FromStatus(err), ifrt.ErrNotFound) {
		t.Errorf("Compile with a wrong session token: %v, want NOT_FOUND", err)
	}
	_, err = gang.Launch(ctx, &workerpb.LaunchRequest{SessionId: client.SessionID(), SessionToken: client.SessionToken(), ProgramId: resp.GetProgramId(),
		LaunchId: 1, PartitionWorkers: []string{s.addr}})
	if !errors.Is(rpc.FromStatus(err), ifrt.ErrInvalidArgument) {
		t.Errorf("Launch naming 1 worker for 4 partitions: %v, want INVALID_ARGUMENT", err)
	}
	if n := worker.GangPrograms(s.w); n != 1 {
		t.Fatalf("the worker holds %d gang programs, want 1", n)
	}
	client.Close()
	for worker.GangPrograms(s.w) != 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the gang program outlived its session")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// startGangSession starts a worker, opens a session on it and dials its Gang
// service; all of them end with the test.
func startGangSession(t *testing.T) (context.Context, *standalone, *proxy.Client, workerpb.GangClient) {
	t.Helper()
	ctx := testenv.Context(t, defaultTestTimeout)
	s := startStandalone(t)
	client, err := proxy.Dial(ctx, s.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	conn, err := grpc.NewClient(s.addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return ctx, s, client, workerpb.NewGangClient(conn)
}
