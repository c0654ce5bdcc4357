module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3x5xi32> {jax.result_info = "result[0]"}, tensor<3x5xui8> {jax.result_info = "result[1]"}, tensor<3x5xbf16> {jax.result_info = "result[2]"}, tensor<3x5xf16> {jax.result_info = "result[3]"}, tensor<3x5xi1> {jax.result_info = "result[4]"}, tensor<3x5xi8> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x5xf32>) -> tensor<3x5xi32>
    %1 = stablehlo.convert %arg0 : (tensor<3x5xf32>) -> tensor<3x5xui8>
    %2 = stablehlo.convert %arg0 : (tensor<3x5xf32>) -> tensor<3x5xbf16>
    %3 = stablehlo.convert %arg0 : (tensor<3x5xf32>) -> tensor<3x5xf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %5 = stablehlo.compare NE, %arg0, %4, FLOAT : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xi1>
    %6 = stablehlo.convert %5 : tensor<3x5xi1>
    %7 = stablehlo.convert %arg0 : (tensor<3x5xf32>) -> tensor<3x5xi8>
    return %0, %1, %2, %3, %6, %7 : tensor<3x5xi32>, tensor<3x5xui8>, tensor<3x5xbf16>, tensor<3x5xf16>, tensor<3x5xi1>, tensor<3x5xi8>
  }
}
