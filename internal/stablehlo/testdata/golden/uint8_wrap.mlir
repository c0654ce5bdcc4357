module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xui8>, %arg1: tensor<10xui8>) -> (tensor<10xui8> {jax.result_info = "result[0]"}, tensor<10xui8> {jax.result_info = "result[1]"}, tensor<10xui8> {jax.result_info = "result[2]"}, tensor<10xui8> {jax.result_info = "result[3]"}, tensor<10xi8> {jax.result_info = "result[4]"}, tensor<10xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<10xui8>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<10xui8>
    %2 = stablehlo.subtract %arg0, %arg1 : tensor<10xui8>
    %3 = stablehlo.not %arg0 : tensor<10xui8>
    %4 = stablehlo.convert %arg0 : (tensor<10xui8>) -> tensor<10xi8>
    %5 = stablehlo.convert %arg0 : (tensor<10xui8>) -> tensor<10xf32>
    return %0, %1, %2, %3, %4, %5 : tensor<10xui8>, tensor<10xui8>, tensor<10xui8>, tensor<10xui8>, tensor<10xi8>, tensor<10xf32>
  }
}
