module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}) {
    %0 = chlo.erf %arg0 : tensor<4x5xf32> -> tensor<4x5xf32>
    %1 = stablehlo.tanh %arg0 : tensor<4x5xf32>
    %2 = chlo.erf_inv %1 : tensor<4x5xf32> -> tensor<4x5xf32>
    return %0, %2 : tensor<4x5xf32>, tensor<4x5xf32>
  }
}
