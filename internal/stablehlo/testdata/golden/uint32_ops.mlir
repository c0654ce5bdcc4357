module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xui32>, %arg1: tensor<8xui32>) -> (tensor<8xui32> {jax.result_info = "result[0]"}, tensor<8xui32> {jax.result_info = "result[1]"}, tensor<8xui32> {jax.result_info = "result[2]"}, tensor<8xui32> {jax.result_info = "result[3]"}, tensor<8xui32> {jax.result_info = "result[4]"}, tensor<8xui32> {jax.result_info = "result[5]"}, tensor<8xui32> {jax.result_info = "result[6]"}, tensor<8xui32> {jax.result_info = "result[7]"}, tensor<8xui32> {jax.result_info = "result[8]"}, tensor<8xi1> {jax.result_info = "result[9]"}, tensor<8xui32> {jax.result_info = "result[10]"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8xui32>
    %c = stablehlo.constant dense<3> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %2 = stablehlo.multiply %arg0, %1 : tensor<8xui32>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %4 = stablehlo.add %arg1, %3 : tensor<8xui32>
    %5 = call @floor_divide(%arg0, %4) : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xui32>
    %c_1 = stablehlo.constant dense<1> : tensor<ui32>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %7 = stablehlo.add %arg1, %6 : tensor<8xui32>
    %8 = call @remainder(%arg0, %7) : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xui32>
    %9 = stablehlo.shift_left %arg0, %arg1 : tensor<8xui32>
    %10 = stablehlo.shift_right_logical %arg0, %arg1 : tensor<8xui32>
    %11 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<8xui32>
    %12 = stablehlo.popcnt %arg0 : tensor<8xui32>
    %13 = stablehlo.count_leading_zeros %arg0 : tensor<8xui32>
    %14 = stablehlo.compare GT, %arg0, %arg1, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %15 = stablehlo.maximum %arg0, %arg1 : tensor<8xui32>
    return %0, %2, %5, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xi1>, tensor<8xui32>
  }
  func.func private @floor_divide(%arg0: tensor<8xui32>, %arg1: tensor<8xui32>) -> tensor<8xui32> {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<8xui32>
    return %0 : tensor<8xui32>
  }
  func.func private @remainder(%arg0: tensor<8xui32>, %arg1: tensor<8xui32>) -> tensor<8xui32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %1 = stablehlo.compare EQ, %arg1, %0, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %3 = call @_where(%1, %2, %arg1) : (tensor<8xi1>, tensor<8xui32>, tensor<8xui32>) -> tensor<8xui32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %6 = stablehlo.compare NE, %4, %5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %8 = stablehlo.compare LT, %4, %7, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<ui32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %10 = stablehlo.compare LT, %3, %9, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %12 = stablehlo.and %11, %6 : tensor<8xi1>
    %13 = stablehlo.add %4, %3 : tensor<8xui32>
    %14 = stablehlo.select %12, %13, %4 : tensor<8xi1>, tensor<8xui32>
    return %14 : tensor<8xui32>
  }
  func.func private @_where(%arg0: tensor<8xi1>, %arg1: tensor<8xui32>, %arg2: tensor<8xui32>) -> tensor<8xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xui32>
    return %0 : tensor<8xui32>
  }
}
