package cluster_test

import (
	"errors"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
)

const twice = `module @twice {
  func.func public @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %x, %x : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}`

// TestExecutionInFlightWhenItsWorkerFreezes: the cluster sends a later
// execution without waiting for its worker, so a worker that stops answering
// after the request went out fails the execution's outputs, not the call; they
// fail with DATA_LOSS, as an execution on a lost worker does.
func TestExecutionInFlightWhenItsWorkerFreezes(t *testing.T) {
	pc := startPathCluster(t, 2, cluster.WithKeepalive(100*time.Millisecond, 300*time.Millisecond))
	ctx := testContext(t)
	x, err := putOn(ctx, pc.client, 0)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := pc.client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(twice)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{x.Sharding().Devices()[0]}})
	if err != nil {
		t.Fatal(err)
	}
	read := func(a ifrt.Array) error { return a.CopyToHostBuffer(ctx, make([]byte, 8), nil) }
	first, err := exe.Execute(ctx, []ifrt.Array{x}, &ifrt.ExecuteOptions{FillStatus: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := read(first.Outputs[0]); err != nil {
		t.Fatal(err)
	}

	pc.paths[0].Freeze()
	res, err := exe.Execute(ctx, []ifrt.Array{x}, &ifrt.ExecuteOptions{FillStatus: true})
	if err != nil {
		if !errors.Is(err, ifrt.ErrDataLoss) {
			t.Fatalf("Execute on a frozen worker: %v, want success or DATA_LOSS", err)
		}
		return
	}
	if err := read(res.Outputs[0]); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("reading the output of an execution whose worker froze: %v, want DATA_LOSS", err)
	}
	if err := res.Outputs[0].Ready().Await(ctx); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("Ready of that output: %v, want DATA_LOSS", err)
	}
	if err := res.Status.Await(ctx); !errors.Is(err, ifrt.ErrDataLoss) {
		t.Errorf("the execution's status: %v, want DATA_LOSS", err)
	}
}
