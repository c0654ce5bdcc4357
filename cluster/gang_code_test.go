package cluster_test

import (
	"testing"

	"github.com/openpathways/pathways/cluster/local"
	"github.com/openpathways/pathways/ifrt"
)

// oneFails is the psum program of gang_fault_test.go with partition 3
// computing a value too large for the interpreter before the psum: it fails
// RESOURCE_EXHAUSTED, and the partitions waiting for it in the psum fail
// ABORTED, on its worker and on the other.
const oneFails = `module @one_fails attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]>
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<2xf32>) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %pid = stablehlo.partition_id : tensor<ui32>
      %three = stablehlo.constant dense<3> : tensor<ui32>
      %is3 = stablehlo.compare EQ, %pid, %three, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      %which = stablehlo.convert %is3 : (tensor<i1>) -> tensor<i32>
      %v = "stablehlo.case"(%which) ({
        stablehlo.return %arg1 : tensor<2xf32>
      }, {
        %one = stablehlo.constant dense<1.0> : tensor<f32>
        %huge = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<274877906944xf32>
        %s = stablehlo.slice %huge [0:2] : (tensor<274877906944xf32>) -> tensor<2xf32>
        stablehlo.return %s : tensor<2xf32>
      }) : (tensor<i32>) -> tensor<2xf32>
      %3 = "stablehlo.all_reduce"(%v) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %4 = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %3 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}`

// TestGangFailureKeepsItsCode: a launch spanning slices fails with the code
// of the partition that failed, as the same failure on one device does
// (RESOURCE_EXHAUSTED for a value too large), not with the ABORTED its
// partners echo; so does a spanning auto-sharded program too large for
// every worker. Both were ABORTED (or UNKNOWN) before.
func TestGangFailureKeepsItsCode(t *testing.T) {
	l := startLocal(t, local.Config{Slices: 2, DevicesPerSlice: 4, NoProxy: true})
	ctx := testContext(t)
	all := l.Client.Devices()
	exe, err := l.Client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(oneFails)}, &ifrt.CompileOptions{Devices: ifrt.DeviceList{all[0], all[2], all[4], all[6]}})
	if err != nil {
		t.Fatal(err)
	}
	x, err := psumInput(ctx, l.Client, exe)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := exe.Execute(ctx, []ifrt.Array{x}, nil); ifrt.CodeOf(err) != ifrt.ResourceExhausted {
			t.Fatalf("one partition too large: %v (%v), want RESOURCE_EXHAUSTED", ifrt.CodeOf(err), err)
		}
	}

	huge, err := l.Client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(`module @huge attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<274877906944xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) {
    %c = stablehlo.constant dense<1.0> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<274877906944xf32>
    return %0 : tensor<274877906944xf32>
  }
}`)}, &ifrt.CompileOptions{Devices: all})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := huge.Execute(ctx, nil, nil); ifrt.CodeOf(err) != ifrt.ResourceExhausted {
		t.Fatalf("an auto-sharded program too large everywhere: %v (%v), want RESOURCE_EXHAUSTED", ifrt.CodeOf(err), err)
	}
	// The workers go on.
	if err := runPsum(ctx, l.Client, mustCompile(ctx, t, l.Client, ifrt.DeviceList{all[0], all[2], all[4], all[6]})); err != nil {
		t.Fatalf("a launch after the failures: %v", err)
	}
}
