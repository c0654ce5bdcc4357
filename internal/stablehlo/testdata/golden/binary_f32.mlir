module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<4x5xf32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}, tensor<4x5xf32> {jax.result_info = "result[2]"}, tensor<4x5xf32> {jax.result_info = "result[3]"}, tensor<4x5xf32> {jax.result_info = "result[4]"}, tensor<4x5xf32> {jax.result_info = "result[5]"}, tensor<4x5xf32> {jax.result_info = "result[6]"}, tensor<4x5xf32> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.subtract %arg0, %arg1 : tensor<4x5xf32>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<4x5xf32>
    %2 = stablehlo.divide %arg0, %arg1 : tensor<4x5xf32>
    %3 = stablehlo.remainder %arg0, %arg1 : tensor<4x5xf32>
    %4 = stablehlo.maximum %arg0, %arg1 : tensor<4x5xf32>
    %5 = stablehlo.minimum %arg0, %arg1 : tensor<4x5xf32>
    %6 = stablehlo.atan2 %arg0, %arg1 : tensor<4x5xf32>
    %7 = stablehlo.abs %arg0 : tensor<4x5xf32>
    %8 = stablehlo.power %7, %arg1 : tensor<4x5xf32>
    return %0, %1, %2, %3, %4, %5, %6, %8 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>
  }
}
