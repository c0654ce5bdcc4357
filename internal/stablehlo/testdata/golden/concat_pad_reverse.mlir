module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> (tensor<3x12xf32> {jax.result_info = "result[0]"}, tensor<8x4xf32> {jax.result_info = "result[1]"}, tensor<7x4xf32> {jax.result_info = "result[2]"}, tensor<3x4xf32> {jax.result_info = "result[3]"}, tensor<2x3x4xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, %arg0, dim = 1 : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x12xf32>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %1 = stablehlo.pad %arg0, %cst, low = [1, -1], high = [2, 1], interior = [1, 0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<8x4xf32>
    %cst_0 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %2 = stablehlo.pad %arg0, %cst_0, low = [0, -2], high = [0, -1], interior = [2, 1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<7x4xf32>
    %3 = call @_flip(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %6 = stablehlo.concatenate %4, %5, dim = 0 : (tensor<1x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
    return %0, %1, %2, %3, %6 : tensor<3x12xf32>, tensor<8x4xf32>, tensor<7x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>
  }
  func.func private @_flip(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
