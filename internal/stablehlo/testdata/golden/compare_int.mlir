module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xi32>, %arg1: tensor<9xi32>) -> (tensor<9xi1> {jax.result_info = "result[0]"}, tensor<9xi1> {jax.result_info = "result[1]"}, tensor<9xi1> {jax.result_info = "result[2]"}, tensor<9xi1> {jax.result_info = "result[3]"}, tensor<9xi1> {jax.result_info = "result[4]"}, tensor<9xi1> {jax.result_info = "result[5]"}, tensor<9xi1> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.compare EQ, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %1 = stablehlo.compare NE, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %2 = stablehlo.compare LT, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %3 = stablehlo.compare LE, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %4 = stablehlo.compare GT, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %5 = stablehlo.compare GE, %arg0, %arg1, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %6 = stablehlo.convert %arg0 : (tensor<9xi32>) -> tensor<9xui32>
    %7 = stablehlo.convert %arg1 : (tensor<9xi32>) -> tensor<9xui32>
    %8 = stablehlo.compare LT, %6, %7, UNSIGNED : (tensor<9xui32>, tensor<9xui32>) -> tensor<9xi1>
    return %0, %1, %2, %3, %4, %5, %8 : tensor<9xi1>, tensor<9xi1>, tensor<9xi1>, tensor<9xi1>, tensor<9xi1>, tensor<9xi1>, tensor<9xi1>
  }
}
