module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<20xf32>) -> (tensor<20xf32> {jax.result_info = "result[0]"}, tensor<20xf32> {jax.result_info = "result[1]"}, tensor<20xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<20xf32>
    %1 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<20xf32>
    %cst = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<20xf32>
    %3 = stablehlo.multiply %arg0, %2 : tensor<20xf32>
    %4 = stablehlo.reduce_precision %3, format = e4m3 : tensor<20xf32>
    return %0, %1, %4 : tensor<20xf32>, tensor<20xf32>, tensor<20xf32>
  }
}
