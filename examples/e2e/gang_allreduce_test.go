package e2e

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/openpathways/pathways/cluster"
	"github.com/openpathways/pathways/ifrt"
	"github.com/openpathways/pathways/internal/stablehlo/communicatortest"
	"github.com/openpathways/pathways/internal/testenv"
)

// allReduceMiB is the size of each partition's value in
// TestGangAllReduceAcrossProcesses, and chainedAllReduces how many run in
// one launch for its second figure (the sum is then 2^8 times the
// argument's elements, which are below 1000: exact in f32).
const (
	allReduceMiB      = 64
	chainedAllReduces = 8
)

// TestGangAllReduceAcrossProcesses sums 64 MiB of f32 across two worker
// processes (one device of each, a gang whose all_reduce streams over the
// workers' peer connection on loopback) and copies 64 MiB with copy() in the
// same run; it logs both rates (the best of 20 of each, so that a moment of
// contention on a shared machine does not decide the figure) and their ratio
// and checks the sum. A second figure, the best of 10 launches, runs
// chainedAllReduces of them in each launch, each summing the last one's
// result: the collective's own rate, without the cost (the gang scheduler's
// sequence numbers, the launch messages and answers) that each launch of
// one pays. It does not assert on time.
func TestGangAllReduceAcrossProcesses(t *testing.T) {
	skipShort(t)
	ctx := testenv.Context(t, testTimeout)
	c := startCluster(t, ctx, "gocpu")
	client, err := cluster.Connect(ctx, c.rmAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	all := client.Devices()
	devs := ifrt.DeviceList{all[0], all[4]} // slice 0 and slice 1
	n := allReduceMiB << 20 / 4
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
	rate := func(d time.Duration) float64 { return allReduceMiB / d.Seconds() }
	for _, run := range []struct {
		chained, launches int
		what              string
	}{
		{1, 20, "one a launch"},
		{chainedAllReduces, 10, fmt.Sprintf("%d in one launch", chainedAllReduces)},
	} {
		exe, err := client.Compile(ctx, &ifrt.MLIRProgram{Module: []byte(communicatortest.AllReduceSums(2, n, run.chained))}, &ifrt.CompileOptions{Devices: devs})
		if err != nil {
			t.Fatal(err)
		}
		bestReduce, bestCopy := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		dst := make([]byte, len(data))
		var out ifrt.Array
		for range run.launches {
			if out != nil {
				out.Delete()
			}
			start := time.Now()
			res, err := exe.Execute(ctx, []ifrt.Array{x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			bestReduce = min(bestReduce, time.Since(start)/time.Duration(run.chained))
			out = res.Outputs[0]
			start = time.Now()
			copy(dst, data)
			bestCopy = min(bestCopy, time.Since(start))
		}
		t.Logf("all-reduce of %d MiB across 2 worker processes, %s: %.0f MiB/s; memcpy: %.0f MiB/s; all-reduce at %.2f of memcpy",
			allReduceMiB, run.what, rate(bestReduce), rate(bestCopy), float64(bestCopy)/float64(bestReduce))
		// Each all_reduce over the two processes doubles the sum.
		communicatortest.CheckAllReduce(ctx, t, out, 1<<run.chained, 1000)
		out.Delete()
		exe.Delete()
	}
}
