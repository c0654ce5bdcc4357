module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<104xf32>) -> (tensor<104xf8E5M2> {jax.result_info = "result[0]"}, tensor<104xf8E4M3> {jax.result_info = "result[1]"}, tensor<104xf8E3M4> {jax.result_info = "result[2]"}, tensor<104xf8E4M3FN> {jax.result_info = "result[3]"}, tensor<104xf8E4M3FNUZ> {jax.result_info = "result[4]"}, tensor<104xf8E5M2FNUZ> {jax.result_info = "result[5]"}, tensor<104xf8E4M3B11FNUZ> {jax.result_info = "result[6]"}, tensor<104xf32> {jax.result_info = "result[7]"}, tensor<104xf32> {jax.result_info = "result[8]"}, tensor<104xf32> {jax.result_info = "result[9]"}, tensor<104xf32> {jax.result_info = "result[10]"}, tensor<104xf32> {jax.result_info = "result[11]"}, tensor<104xf32> {jax.result_info = "result[12]"}, tensor<104xf32> {jax.result_info = "result[13]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E5M2>
    %1 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3>
    %2 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E3M4>
    %3 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3FN>
    %4 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3FNUZ>
    %5 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E5M2FNUZ>
    %6 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3B11FNUZ>
    %7 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E5M2>
    %8 = stablehlo.convert %7 : (tensor<104xf8E5M2>) -> tensor<104xf32>
    %9 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3>
    %10 = stablehlo.convert %9 : (tensor<104xf8E4M3>) -> tensor<104xf32>
    %11 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E3M4>
    %12 = stablehlo.convert %11 : (tensor<104xf8E3M4>) -> tensor<104xf32>
    %13 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3FN>
    %14 = stablehlo.convert %13 : (tensor<104xf8E4M3FN>) -> tensor<104xf32>
    %15 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3FNUZ>
    %16 = stablehlo.convert %15 : (tensor<104xf8E4M3FNUZ>) -> tensor<104xf32>
    %17 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E5M2FNUZ>
    %18 = stablehlo.convert %17 : (tensor<104xf8E5M2FNUZ>) -> tensor<104xf32>
    %19 = stablehlo.convert %arg0 : (tensor<104xf32>) -> tensor<104xf8E4M3B11FNUZ>
    %20 = stablehlo.convert %19 : (tensor<104xf8E4M3B11FNUZ>) -> tensor<104xf32>
    return %0, %1, %2, %3, %4, %5, %6, %8, %10, %12, %14, %16, %18, %20 : tensor<104xf8E5M2>, tensor<104xf8E4M3>, tensor<104xf8E3M4>, tensor<104xf8E4M3FN>, tensor<104xf8E4M3FNUZ>, tensor<104xf8E5M2FNUZ>, tensor<104xf8E4M3B11FNUZ>, tensor<104xf32>, tensor<104xf32>, tensor<104xf32>, tensor<104xf32>, tensor<104xf32>, tensor<104xf32>, tensor<104xf32>
  }
}
