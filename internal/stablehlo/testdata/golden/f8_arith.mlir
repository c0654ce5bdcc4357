module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf8E4M3FN>, %arg1: tensor<8x8xf8E5M2>) -> (tensor<8x8xf8E4M3FN> {jax.result_info = "result[0]"}, tensor<8x8xf8E5M2> {jax.result_info = "result[1]"}, tensor<8x8xf32> {jax.result_info = "result[2]"}, tensor<8xf8E5M2> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<8x8xf8E4M3FN>
    %1 = stablehlo.convert %arg0 : (tensor<8x8xf8E4M3FN>) -> tensor<8x8xf8E5M2>
    %2 = stablehlo.add %1, %arg1 : tensor<8x8xf8E5M2>
    %3 = stablehlo.convert %arg1 : (tensor<8x8xf8E5M2>) -> tensor<8x8xf8E4M3FN>
    %4 = stablehlo.dot_general %arg0, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf8E4M3FN>, tensor<8x8xf8E4M3FN>) -> tensor<8x8xf32>
    %cst = stablehlo.constant dense<0xFC> : tensor<f8E5M2>
    %5 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x8xf8E5M2>, tensor<f8E5M2>) -> tensor<8xf8E5M2>
    return %0, %2, %4, %5 : tensor<8x8xf8E4M3FN>, tensor<8x8xf8E5M2>, tensor<8x8xf32>, tensor<8xf8E5M2>
  }
}
