module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>, %arg1: tensor<12xi32>) -> (tensor<12xi32> {jax.result_info = "result[0]"}, tensor<12xi32> {jax.result_info = "result[1]"}, tensor<12xi32> {jax.result_info = "result[2]"}, tensor<12xi32> {jax.result_info = "result[3]"}, tensor<12xi32> {jax.result_info = "result[4]"}, tensor<12xi32> {jax.result_info = "result[5]"}, tensor<12xi32> {jax.result_info = "result[6]"}, tensor<12xi32> {jax.result_info = "result[7]"}, tensor<12xi32> {jax.result_info = "result[8]"}, tensor<12xi32> {jax.result_info = "result[9]"}, tensor<12xi32> {jax.result_info = "result[10]"}, tensor<12xi32> {jax.result_info = "result[11]"}, tensor<12xi32> {jax.result_info = "result[12]"}, tensor<12xi32> {jax.result_info = "result[13]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<12xi32>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<12xi32>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<12xi32>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<12xi32>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<12xi32>
    %5 = stablehlo.maximum %arg0, %arg1 : tensor<12xi32>
    %6 = stablehlo.minimum %arg0, %arg1 : tensor<12xi32>
    %7 = stablehlo.negate %arg0 : tensor<12xi32>
    %8 = stablehlo.abs %arg0 : tensor<12xi32>
    %9 = stablehlo.sign %arg0 : tensor<12xi32>
    %10 = stablehlo.and %arg0, %arg1 : tensor<12xi32>
    %11 = stablehlo.or %arg0, %arg1 : tensor<12xi32>
    %12 = stablehlo.xor %arg0, %arg1 : tensor<12xi32>
    %13 = stablehlo.not %arg0 : tensor<12xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>, tensor<12xi32>
  }
}
