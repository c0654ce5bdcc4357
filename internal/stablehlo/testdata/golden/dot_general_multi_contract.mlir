module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4x2xf32>) -> (tensor<2x2xf32> {jax.result_info = "result[0]"}, tensor<2x3x3xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1, 2] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
    %2 = stablehlo.slice %arg0 [0:1, 0:1, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x1x4xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x1x4xf32>) -> tensor<4xf32>
    %4 = stablehlo.slice %arg0 [1:2, 1:2, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x1x4xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x1x4xf32>) -> tensor<4xf32>
    %6 = stablehlo.dot_general %3, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    return %0, %1, %6 : tensor<2x2xf32>, tensor<2x3x3xf32>, tensor<f32>
  }
}
