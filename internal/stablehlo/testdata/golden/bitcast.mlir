module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<3xui32>) -> (tensor<6xui32> {jax.result_info = "result[0]"}, tensor<3x4xui8> {jax.result_info = "result[1]"}, tensor<2x2xf16> {jax.result_info = "result[2]"}, tensor<6xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<6xf32>) -> tensor<6xui32>
    %1 = stablehlo.bitcast_convert %arg1 : (tensor<3xui32>) -> tensor<3x4xui8>
    %2 = stablehlo.reshape %arg0 : (tensor<6xf32>) -> tensor<3x2xf32>
    %3 = stablehlo.bitcast_convert %2 : (tensor<3x2xf32>) -> tensor<3x2x2xf16>
    %4 = stablehlo.slice %3 [0:1, 0:2, 0:2] : (tensor<3x2x2xf16>) -> tensor<1x2x2xf16>
    %5 = stablehlo.reshape %4 : (tensor<1x2x2xf16>) -> tensor<2x2xf16>
    %6 = stablehlo.bitcast_convert %arg0 : (tensor<6xf32>) -> tensor<6xi32>
    %7 = stablehlo.bitcast_convert %6 : (tensor<6xi32>) -> tensor<6xf32>
    return %0, %1, %5, %7 : tensor<6xui32>, tensor<3x4xui8>, tensor<2x2xf16>, tensor<6xf32>
  }
}
