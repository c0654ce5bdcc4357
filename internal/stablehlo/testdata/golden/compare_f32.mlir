module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xf32>, %arg1: tensor<7xf32>) -> (tensor<7xi1> {jax.result_info = "result[0]"}, tensor<7xi1> {jax.result_info = "result[1]"}, tensor<7xi1> {jax.result_info = "result[2]"}, tensor<7xi1> {jax.result_info = "result[3]"}, tensor<7xi1> {jax.result_info = "result[4]"}, tensor<7xi1> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %1 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %2 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %3 = stablehlo.compare LE, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %4 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %5 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    return %0, %1, %2, %3, %4, %5 : tensor<7xi1>, tensor<7xi1>, tensor<7xi1>, tensor<7xi1>, tensor<7xi1>, tensor<7xi1>
  }
}
