module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<2x2xf32> {jax.result_info = "result[0]"}, tensor<3x3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<2x2xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.slice %arg0 [1:3, 0:4:2] : (tensor<3x4xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.slice %arg0 [0:3, 1:4] : (tensor<3x4xf32>) -> tensor<3x3xf32>
    %2 = stablehlo.reverse %1, dims = [0] : tensor<3x3xf32>
    %3 = stablehlo.slice %arg0 [0:3, 3:4] : (tensor<3x4xf32>) -> tensor<3x1xf32>
    %4 = stablehlo.reshape %3 : (tensor<3x1xf32>) -> tensor<3xf32>
    %5 = stablehlo.slice %arg0 [0:3:2, 0:4:3] : (tensor<3x4xf32>) -> tensor<2x2xf32>
    return %0, %2, %4, %5 : tensor<2x2xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<2x2xf32>
  }
}
