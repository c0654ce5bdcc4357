module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf64>, %arg1: tensor<3x4xf64>) -> (tensor<3x4xf64> {jax.result_info = "result[0]"}, tensor<3x4xf64> {jax.result_info = "result[1]"}, tensor<3x4xf64> {jax.result_info = "result[2]"}, tensor<3x4xf64> {jax.result_info = "result[3]"}, tensor<3x4xf64> {jax.result_info = "result[4]"}, tensor<3x4xf64> {jax.result_info = "result[5]"}, tensor<3x4xf64> {jax.result_info = "result[6]"}, tensor<3x4xf64> {jax.result_info = "result[7]"}, tensor<3x4xf64> {jax.result_info = "result[8]"}, tensor<3x4xf64> {jax.result_info = "result[9]"}, tensor<3x4xf64> {jax.result_info = "result[10]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<3x4xf64>
    %1 = stablehlo.log %arg1 : tensor<3x4xf64>
    %2 = stablehlo.tanh %arg0 : tensor<3x4xf64>
    %3 = stablehlo.sine %arg0 : tensor<3x4xf64>
    %4 = stablehlo.cosine %arg0 : tensor<3x4xf64>
    %5 = stablehlo.sqrt %arg1 : tensor<3x4xf64>
    %6 = stablehlo.exponential_minus_one %arg0 : tensor<3x4xf64>
    %7 = stablehlo.log_plus_one %arg1 : tensor<3x4xf64>
    %8 = stablehlo.negate %arg0 : tensor<3x4xf64>
    %9 = stablehlo.exponential %8 : tensor<3x4xf64>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x4xf64>
    %11 = stablehlo.add %10, %9 : tensor<3x4xf64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<3x4xf64>
    %13 = stablehlo.divide %12, %11 : tensor<3x4xf64>
    %14 = stablehlo.cbrt %arg0 : tensor<3x4xf64>
    %15 = stablehlo.rsqrt %arg1 : tensor<3x4xf64>
    return %0, %1, %2, %3, %4, %5, %6, %7, %13, %14, %15 : tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>
  }
}
