module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<24xf32>) -> (tensor<24xi4> {jax.result_info = "result[0]"}, tensor<24xui4> {jax.result_info = "result[1]"}, tensor<24xi2> {jax.result_info = "result[2]"}, tensor<24xui2> {jax.result_info = "result[3]"}, tensor<24xf32> {jax.result_info = "result[4]"}, tensor<24xf32> {jax.result_info = "result[5]"}, tensor<24xf32> {jax.result_info = "result[6]"}, tensor<24xf32> {jax.result_info = "result[7]"}, tensor<24xi4> {jax.result_info = "result[8]"}, tensor<24xui4> {jax.result_info = "result[9]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi4>
    %1 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xui4>
    %2 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi2>
    %3 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xui2>
    %4 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi4>
    %5 = stablehlo.convert %4 : (tensor<24xi4>) -> tensor<24xf32>
    %6 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xui4>
    %7 = stablehlo.convert %6 : (tensor<24xui4>) -> tensor<24xf32>
    %8 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi2>
    %9 = stablehlo.convert %8 : (tensor<24xi2>) -> tensor<24xf32>
    %10 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xui2>
    %11 = stablehlo.convert %10 : (tensor<24xui2>) -> tensor<24xf32>
    %12 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi32>
    %13 = stablehlo.convert %12 : (tensor<24xi32>) -> tensor<24xi4>
    %14 = stablehlo.convert %arg0 : (tensor<24xf32>) -> tensor<24xi32>
    %15 = stablehlo.convert %14 : (tensor<24xi32>) -> tensor<24xui4>
    return %0, %1, %2, %3, %5, %7, %9, %11, %13, %15 : tensor<24xi4>, tensor<24xui4>, tensor<24xi2>, tensor<24xui2>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xf32>, tensor<24xi4>, tensor<24xui4>
  }
}
