package communicatortest

import (
	"fmt"
	"strings"
)

// AllReduceSum is a module whose partitions (one replica) each sum their
// f32 n-vector over all of them with one all_reduce: the program the
// all-reduce benchmarks across workers run.
func AllReduceSum(partitions, n int) string {
	ids := make([]string, partitions)
	for i := range ids {
		ids[i] = fmt.Sprint(i)
	}
	return fmt.Sprintf(`module @allreduce attributes {mhlo.num_partitions = %[1]d : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%%a: tensor<%[2]dxf32>) -> tensor<%[2]dxf32> {
    %%r = "stablehlo.all_reduce"(%%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[%[3]s]]> : tensor<1x%[1]dxi64>, use_global_device_ids}> ({
    ^bb0(%%x: tensor<f32>, %%y: tensor<f32>):
      %%s = stablehlo.add %%x, %%y : tensor<f32>
      stablehlo.return %%s : tensor<f32>
    }) : (tensor<%[2]dxf32>) -> tensor<%[2]dxf32>
    return %%r : tensor<%[2]dxf32>
  }
}`, partitions, n, strings.Join(ids, ", "))
}
