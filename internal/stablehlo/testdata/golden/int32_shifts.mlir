module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>, %arg1: tensor<12xi32>) -> (tensor<12xi32> {jax.result_info = "result[0]"}, tensor<12xi32> {jax.result_info = "result[1]"}, tensor<12xi32> {jax.result_info = "result[2]"}, tensor<12xi32> {jax.result_info = "result[3]"}, tensor<12xi32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.shift_left %arg0, %arg1 : tensor<12xi32>
    %1 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<12xi32>
    %2 = stablehlo.shift_right_logical %arg0, %arg1 : tensor<12xi32>
    %3 = stablehlo.popcnt %arg0 : tensor<12xi32>
    %4 = stablehlo.count_leading_zeros %arg0 : tensor<12xi32>
    return %0, %1, %2, %3, %4 : tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>
  }
}
