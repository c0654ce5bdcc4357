package ifrttest

import (
	"fmt"
	"testing"

	"github.com/openpathways/pathways/ifrt"
)

// collectiveProgram sums x·(p+1) over the n partitions p with an all_reduce:
// every partition's result is x·n(n+1)/2. On a cluster whose devices belong
// to several workers it is one program across them (a gang), and the
// all_reduce crosses workers.
func collectiveProgram(n int) string {
	groups := ""
	for i := range n {
		if i > 0 {
			groups += ", "
		}
		groups += fmt.Sprint(i)
	}
	return fmt.Sprintf(`module @jit_collective attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%x: tensor<4xf32>) -> tensor<4xf32> {
    %%p = stablehlo.partition_id : tensor<ui32>
    %%one = stablehlo.constant dense<1> : tensor<ui32>
    %%q = stablehlo.add %%p, %%one : tensor<ui32>
    %%f = stablehlo.convert %%q : (tensor<ui32>) -> tensor<f32>
    %%b = stablehlo.broadcast_in_dim %%f, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %%y = stablehlo.multiply %%x, %%b : tensor<4xf32>
    %%r = "stablehlo.all_reduce"(%%y) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[%[2]s]]> : tensor<1x%[1]dxi64>, use_global_device_ids}> ({
    ^bb0(%%a: tensor<f32>, %%c: tensor<f32>):
      %%s = stablehlo.add %%a, %%c : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    return %%r : tensor<4xf32>
  }
}
`, n, groups)
}

// testExecuteCollective runs an all_reduce over every device the suite may
// use, several times in a row, with a replicated argument.
func testExecuteCollective(t *testing.T, h Harness) {
	if !h.Collectives {
		t.Skip("the backend does not run collectives")
	}
	e, exe := h.programEnv(t, 2, collectiveProgram)
	n := len(e.devs)
	defer exe.Delete()
	replicated, err := ifrt.NewHloSharding(e.devs, "", ifrt.Replicated())
	if err != nil {
		t.Fatal(err)
	}
	in := []float32{1, 2, -3, 0.5}
	x := e.put(f32bytes(in...), ifrt.F32, ifrt.Shape{4}, replicated)
	k := float32(n * (n + 1) / 2)
	want := fmt.Sprint([]float32{in[0] * k, in[1] * k, in[2] * k, in[3] * k})
	for i := range 3 {
		res, err := exe.Execute(e.ctx, []ifrt.Array{x}, nil)
		if err != nil {
			t.Fatalf("Execute %d: %v", i, err)
		}
		if got := fmt.Sprint(f32s(e.get(res.Outputs[0]))); got != want {
			t.Fatalf("Execute %d: all_reduce over %d partitions = %s, want %s", i, n, got, want)
		}
		if got := res.Outputs[0].Sharding().Devices(); !got.Equal(e.devs) {
			t.Errorf("the result is on %v, want %v", got, e.devs)
		}
		res.Outputs[0].Delete()
	}
}
