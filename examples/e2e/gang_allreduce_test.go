package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
)

// allReduceMiB is the size of each partition's value in
// TestGangAllReduceAcrossProcesses.
const allReduceMiB = 64

// TestGangAllReduceAcrossProcesses sums 64 MiB of f32 across two worker
// processes (one device of each, a gang whose all_reduce streams over the
// workers' peer connection on loopback) and copies 64 MiB with copy() in the
// same run; it logs both rates and their ratio and checks the sum. It does
// not assert on time.
func TestGangAllReduceAcrossProcesses(t *testing.T) {
	skipShort(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c := startCluster(t, ctx, "gocpu")
	client, err := cluster.Connect(ctx, c.rmAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	all := client.Devices()
	devs := ifrt.DeviceList{all[0], all[4]} // slice 0 and slice 1
	n := allReduceMiB << 20 / 4
	program := fmt.Sprintf(`module @allreduce attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%[1]dxf32>) -> tensor<%[1]dxf32> {
    %%r = "stablehlo.all_reduce"(%%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.add %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%[1]dxf32>) -> tensor<%[1]dxf32>
    return %%r : tensor<%[1]dxf32>
  }
}`, n)
	exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(program)}, &ifrt.CompileOptions{Devices: devs})
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(i%1000)))
	}
	s, err := ifrt.NewHloSharding(devs, "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	x, err := client.MakeArrayFromHostBuffer(ctx, data, ifrt.ArraySpec{DType: ifrt.F32, Shape: ifrt.Shape{int64(n)}, Sharding: s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bestReduce, bestCopy := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
	dst := make([]byte, len(data))
	var out ifrt.Array
	for range 5 {
		if out != nil {
			out.Delete()
		}
		start := time.Now()
		res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bestReduce = min(bestReduce, time.Since(start))
		out = res.Outputs[0]
		start = time.Now()
		copy(dst, data)
		bestCopy = min(bestCopy, time.Since(start))
	}
	got := make([]byte, 4*16)
	if err := out.CopyToHostBuffer(ctx, dst, nil); err != nil {
		t.Fatal(err)
	}
	copy(got, dst)
	for i := range 16 {
		if v := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); v != float32(2*(i%1000)) {
			t.Fatalf("element %d of the sum is %v, want %v", i, v, 2*(i%1000))
		}
	}
	rate := func(d time.Duration) float64 { return allReduceMiB / d.Seconds() }
	t.Logf("all-reduce of %d MiB across 2 worker processes: %.0f MiB/s; memcpy: %.0f MiB/s; all-reduce at %.2f of memcpy",
		allReduceMiB, rate(bestReduce), rate(bestCopy), float64(bestCopy)/float64(bestReduce))
}
