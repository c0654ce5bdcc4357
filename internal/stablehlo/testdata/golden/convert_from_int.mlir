module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi32>) -> (tensor<12xf32> {jax.result_info = "result[0]"}, tensor<12xbf16> {jax.result_info = "result[1]"}, tensor<12xi8> {jax.result_info = "result[2]"}, tensor<12xui16> {jax.result_info = "result[3]"}, tensor<12xi1> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xf32>
    %1 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xbf16>
    %2 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xi8>
    %3 = stablehlo.convert %arg0 : (tensor<12xi32>) -> tensor<12xui16>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %5 = stablehlo.compare NE, %arg0, %4, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %6 = stablehlo.convert %5 : tensor<12xi1>
    return %0, %1, %2, %3, %6 : tensor<12xf32>, tensor<12xbf16>, tensor<12xi8>, tensor<12xui16>, tensor<12xi1>
  }
}
