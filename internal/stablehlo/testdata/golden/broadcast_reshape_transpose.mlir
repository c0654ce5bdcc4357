module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<2x6xf32> {jax.result_info = "result[1]"}, tensor<4x3xf32> {jax.result_info = "result[2]"}, tensor<2x3x4xf32> {jax.result_info = "result[3]"}, tensor<2x3x2xf32> {jax.result_info = "result[4]"}, tensor<3x4x4xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.add %arg0, %1 : tensor<3x4xf32>
    %3 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<2x6xf32>
    %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<4xf32>) -> tensor<2x3x4xf32>
    %6 = stablehlo.reshape %arg0 : (tensor<3x4xf32>) -> tensor<3x2x2xf32>
    %7 = stablehlo.transpose %6, dims = [2, 0, 1] : (tensor<3x2x2xf32>) -> tensor<2x3x2xf32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x1x4xf32>
    %9 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4x1xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<3x1x4xf32>) -> tensor<3x4x4xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<1x4x1xf32>) -> tensor<3x4x4xf32>
    %12 = stablehlo.multiply %10, %11 : tensor<3x4x4xf32>
    return %2, %3, %4, %5, %7, %12 : tensor<3x4xf32>, tensor<2x6xf32>, tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<2x3x2xf32>, tensor<3x4x4xf32>
  }
}
