module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xi32>, %arg1: tensor<5xbf16>, %arg2: tensor<4xi1>) -> (tensor<3x4xi32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<4x3xi32> {jax.result_info = "result[2]"}, tensor<4xi32> {jax.result_info = "result[3]"}, tensor<4xi8> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x4xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x4xi32>
    %3 = stablehlo.add %1, %2 : tensor<3x4xi32>
    %4 = stablehlo.convert %arg1 : (tensor<5xbf16>) -> tensor<5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %6 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x4xi32>) -> tensor<4x3xi32>
    %7 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xi32>) -> tensor<1x4xi32>
    %8 = stablehlo.reshape %7 : (tensor<1x4xi32>) -> tensor<4xi32>
    %9 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xi32>) -> tensor<1x4xi32>
    %10 = stablehlo.reshape %9 : (tensor<1x4xi32>) -> tensor<4xi32>
    %11 = stablehlo.negate %10 : tensor<4xi32>
    %12 = call @_where(%arg2, %8, %11) : (tensor<4xi1>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %13 = stablehlo.convert %arg2 : (tensor<4xi1>) -> tensor<4xi8>
    return %3, %5, %6, %12, %13 : tensor<3x4xi32>, tensor<f32>, tensor<4x3xi32>, tensor<4xi32>, tensor<4xi8>
  }
  func.func private @_where(%arg0: tensor<4xi1>, %arg1: tensor<4xi32>, %arg2: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
