module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf64>, %arg1: tensor<5xf64>) -> (tensor<5xf64> {jax.result_info = "result[0]"}, tensor<5xf64> {jax.result_info = "result[1]"}, tensor<5xf64> {jax.result_info = "result[2]"}, tensor<5xf64> {jax.result_info = "result[3]"}, tensor<5xf64> {jax.result_info = "result[4]"}, tensor<5xf64> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<5xf64>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<5xf64>
    %2 = stablehlo.divide %arg0, %arg1 : tensor<5xf64>
    %3 = stablehlo.remainder %arg0, %arg1 : tensor<5xf64>
    %4 = stablehlo.atan2 %arg0, %arg1 : tensor<5xf64>
    %5 = stablehlo.abs %arg0 : tensor<5xf64>
    %6 = stablehlo.power %5, %arg1 : tensor<5xf64>
    return %0, %1, %2, %3, %4, %6 : tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>
  }
}
