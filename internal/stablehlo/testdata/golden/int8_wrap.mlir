module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi8>, %arg1: tensor<10xi8>) -> (tensor<10xi8> {jax.result_info = "result[0]"}, tensor<10xi8> {jax.result_info = "result[1]"}, tensor<10xi8> {jax.result_info = "result[2]"}, tensor<10xi8> {jax.result_info = "result[3]"}, tensor<10xi8> {jax.result_info = "result[4]"}, tensor<10xi8> {jax.result_info = "result[5]"}, tensor<10xi8> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<10xi8>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<10xi8>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<10xi8>
    %3 = stablehlo.negate %arg0 : tensor<10xi8>
    %c = stablehlo.constant dense<3> : tensor<i8>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<10xi8>
    %5 = stablehlo.shift_left %arg0, %4 : tensor<10xi8>
    %6 = stablehlo.count_leading_zeros %arg0 : tensor<10xi8>
    %7 = stablehlo.popcnt %arg0 : tensor<10xi8>
    return %0, %1, %2, %3, %5, %6, %7 : tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>, tensor<10xi8>
  }
}
