module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi16>, %arg1: tensor<6xui16>) -> (tensor<6xi16> {jax.result_info = "result[0]"}, tensor<6xui16> {jax.result_info = "result[1]"}, tensor<6xui16> {jax.result_info = "result[2]"}, tensor<6xi16> {jax.result_info = "result[3]"}, tensor<6xi1> {jax.result_info = "result[4]"}, tensor<6xui16> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6xi16>
    %1 = stablehlo.multiply %arg1, %arg1 : tensor<6xui16>
    %2 = stablehlo.convert %arg0 : (tensor<6xi16>) -> tensor<6xui16>
    %3 = stablehlo.convert %arg1 : (tensor<6xui16>) -> tensor<6xi16>
    %c = stablehlo.constant dense<0> : tensor<i16>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i16>) -> tensor<6xi16>
    %5 = stablehlo.compare GT, %arg0, %4, SIGNED : (tensor<6xi16>, tensor<6xi16>) -> tensor<6xi1>
    %c_0 = stablehlo.constant dense<7> : tensor<ui16>
    %6 = call @floor_divide(%arg1, %c_0) : (tensor<6xui16>, tensor<ui16>) -> tensor<6xui16>
    return %0, %1, %2, %3, %5, %6 : tensor<6xi16>, tensor<6xui16>, tensor<6xui16>, tensor<6xi16>, tensor<6xi1>, tensor<6xui16>
  }
  func.func private @floor_divide(%arg0: tensor<6xui16>, %arg1: tensor<ui16>) -> tensor<6xui16> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui16>) -> tensor<6xui16>
    %1 = stablehlo.divide %arg0, %0 : tensor<6xui16>
    return %1 : tensor<6xui16>
  }
}
