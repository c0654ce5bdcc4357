module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi64>, %arg1: tensor<6xui64>) -> (tensor<6xi64> {jax.result_info = "result[0]"}, tensor<6xi64> {jax.result_info = "result[1]"}, tensor<6xi64> {jax.result_info = "result[2]"}, tensor<6xui64> {jax.result_info = "result[3]"}, tensor<6xui64> {jax.result_info = "result[4]"}, tensor<6xf64> {jax.result_info = "result[5]"}, tensor<6xi32> {jax.result_info = "result[6]"}, tensor<6xui64> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6xi64>
    %1 = stablehlo.add %arg0, %arg0 : tensor<6xi64>
    %c = stablehlo.constant dense<7> : tensor<i64>
    %2 = call @floor_divide(%arg0, %c) : (tensor<6xi64>, tensor<i64>) -> tensor<6xi64>
    %3 = stablehlo.multiply %arg1, %arg1 : tensor<6xui64>
    %c_0 = stablehlo.constant dense<3> : tensor<ui64>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<6xui64>
    %5 = stablehlo.shift_right_logical %arg1, %4 : tensor<6xui64>
    %6 = stablehlo.convert %arg1 : (tensor<6xui64>) -> tensor<6xf64>
    %7 = stablehlo.convert %arg0 : (tensor<6xi64>) -> tensor<6xi32>
    %8 = stablehlo.count_leading_zeros %arg1 : tensor<6xui64>
    return %0, %1, %2, %3, %5, %6, %7, %8 : tensor<6xi64>, tensor<6xi64>, tensor<6xi64>, tensor<6xui64>, tensor<6xui64>, tensor<6xf64>, tensor<6xi32>, tensor<6xui64>
  }
  func.func private @floor_divide(%arg0: tensor<6xi64>, %arg1: tensor<i64>) -> tensor<6xi64> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %1 = stablehlo.divide %arg0, %0 : tensor<6xi64>
    %2 = stablehlo.sign %arg0 : tensor<6xi64>
    %3 = stablehlo.sign %arg1 : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %7 = stablehlo.remainder %arg0, %6 : tensor<6xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<6xi64>, tensor<6xi64>) -> tensor<6xi1>
    %10 = stablehlo.and %5, %9 : tensor<6xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<6xi64>
    %12 = stablehlo.subtract %1, %11 : tensor<6xi64>
    %13 = call @_where(%10, %12, %1) : (tensor<6xi1>, tensor<6xi64>, tensor<6xi64>) -> tensor<6xi64>
    return %13 : tensor<6xi64>
  }
  func.func private @_where(%arg0: tensor<6xi1>, %arg1: tensor<6xi64>, %arg2: tensor<6xi64>) -> tensor<6xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6xi1>, tensor<6xi64>
    return %0 : tensor<6xi64>
  }
}
