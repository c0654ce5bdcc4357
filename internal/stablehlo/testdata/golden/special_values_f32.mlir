module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xf32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}, tensor<8xi1> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<8xf32>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<8xf32>
    %2 = stablehlo.maximum %arg0, %arg1 : tensor<8xf32>
    %3 = stablehlo.minimum %arg0, %arg1 : tensor<8xf32>
    %4 = stablehlo.is_finite %arg0 : (tensor<8xf32>) -> tensor<8xi1>
    %5 = stablehlo.divide %arg0, %arg1 : tensor<8xf32>
    return %0, %1, %2, %3, %4, %5 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi1>, tensor<8xf32>
  }
}
