package communicatortest

import (
	"fmt"
	"strings"
)

// AllReduceSum is a module whose partitions (one replica) each sum their
// f32 n-vector over all of them with one all_reduce: the program the
// all-reduce benchmarks across workers run.
func AllReduceSum(partitions, n int) string { return AllReduceSums(partitions, n, 1) }

// AllReduceSums is AllReduceSum with k all_reduces in a row, each summing
// the previous one's result: every operand but the first is a value of the
// program that nothing else reads, as a training step's gradients are, so
// that one launch measures the collectives without the launch's own cost.
// Each result is partitions^k times the argument.
func AllReduceSums(partitions, n, k int) string {
	ids := make([]string, partitions)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `module @allreduce attributes {mhlo.num_partitions = %d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%r0: tensor<%dxf32>) -> tensor<%dxf32> {
`, partitions, n, n)
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, `    %%r%[1]d = "stablehlo.all_reduce"(%%r%[2]d) <{channel_handle = #stablehlo.channel_handle<handle = %[1]d, type = 1>, replica_groups = dense<[[%[3]s]]> : tensor<1x%[4]dxi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.add %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%[5]dxf32>) -> tensor<%[5]dxf32>
`, i, i-1, strings.Join(ids, ", "), partitions, n)
	}
	fmt.Fprintf(&b, "    return %%r%d : tensor<%dxf32>\n  }\n}\n", k, n)
	return b.String()
}
