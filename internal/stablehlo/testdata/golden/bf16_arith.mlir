module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xbf16>, %arg1: tensor<4x8xbf16>) -> (tensor<4x8xbf16> {jax.result_info = "result[0]"}, tensor<4x8xbf16> {jax.result_info = "result[1]"}, tensor<4x8xbf16> {jax.result_info = "result[2]"}, tensor<4x8xbf16> {jax.result_info = "result[3]"}, tensor<4x8xbf16> {jax.result_info = "result[4]"}, tensor<4x8xbf16> {jax.result_info = "result[5]"}, tensor<4x8xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4x8xbf16>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xbf16>
    %2 = stablehlo.divide %arg0, %arg1 : tensor<4x8xbf16>
    %3 = stablehlo.exponential %arg0 : tensor<4x8xbf16>
    %4 = stablehlo.tanh %arg0 : tensor<4x8xbf16>
    %5 = stablehlo.maximum %arg0, %arg1 : tensor<4x8xbf16>
    %6 = stablehlo.multiply %arg0, %arg1 : tensor<4x8xbf16>
    %7 = stablehlo.convert %6 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
    return %0, %1, %2, %3, %4, %5, %7 : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xf32>
  }
}
