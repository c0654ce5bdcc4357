module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf16>, %arg1: tensor<4x8xf16>) -> (tensor<4x8xf16> {jax.result_info = "result[0]"}, tensor<4x8xf16> {jax.result_info = "result[1]"}, tensor<4x8xf16> {jax.result_info = "result[2]"}, tensor<4x8xf16> {jax.result_info = "result[3]"}, tensor<4x8xf16> {jax.result_info = "result[4]"}, tensor<4xf16> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4x8xf16>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xf16>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<4x8xf16>
    %3 = stablehlo.abs %arg0 : tensor<4x8xf16>
    %4 = stablehlo.sqrt %3 : tensor<4x8xf16>
    %5 = stablehlo.exponential %arg0 : tensor<4x8xf16>
    %6 = stablehlo.convert %arg0 : (tensor<4x8xf16>) -> tensor<4x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = stablehlo.convert %7 : (tensor<4xf32>) -> tensor<4xf16>
    return %0, %1, %2, %4, %5, %8 : tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4x8xf16>, tensor<4xf16>
  }
}
