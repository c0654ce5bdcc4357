module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf64>) -> (tensor<4x5xf64> {jax.result_info = "result[0]"}, tensor<4x5xf64> {jax.result_info = "result[1]"}, tensor<4x5xf64> {jax.result_info = "result[2]"}, tensor<4x5xf64> {jax.result_info = "result[3]"}, tensor<4x5xf64> {jax.result_info = "result[4]"}, tensor<4x5xf64> {jax.result_info = "result[5]"}, tensor<4x5xf64> {jax.result_info = "result[6]"}, tensor<4x5xf64> {jax.result_info = "result[7]"}, tensor<4x5xf64> {jax.result_info = "result[8]"}, tensor<4x5xf64> {jax.result_info = "result[9]"}, tensor<4x5xf64> {jax.result_info = "result[10]"}, tensor<4x5xf64> {jax.result_info = "result[11]"}, tensor<4x5xf64> {jax.result_info = "result[12]"}, tensor<4x5xf64> {jax.result_info = "result[13]"}) {
    %0 = chlo.sinh %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %1 = chlo.cosh %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %3 = stablehlo.divide %arg0, %2 : tensor<4x5xf64>
    %4 = chlo.asin %3 : tensor<4x5xf64> -> tensor<4x5xf64>
    %cst_0 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %6 = stablehlo.divide %arg0, %5 : tensor<4x5xf64>
    %7 = chlo.acos %6 : tensor<4x5xf64> -> tensor<4x5xf64>
    %8 = chlo.atan %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %9 = chlo.asinh %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %10 = stablehlo.abs %arg0 : tensor<4x5xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %12 = stablehlo.add %10, %11 : tensor<4x5xf64>
    %13 = call @arccosh(%12) : (tensor<4x5xf64>) -> tensor<4x5xf64>
    %cst_2 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %15 = stablehlo.divide %arg0, %14 : tensor<4x5xf64>
    %16 = chlo.atanh %15 : tensor<4x5xf64> -> tensor<4x5xf64>
    %17 = stablehlo.abs %arg0 : tensor<4x5xf64>
    %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %19 = stablehlo.add %17, %18 : tensor<4x5xf64>
    %20 = chlo.lgamma %19 : tensor<4x5xf64> -> tensor<4x5xf64>
    %21 = stablehlo.abs %arg0 : tensor<4x5xf64>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %23 = stablehlo.add %21, %22 : tensor<4x5xf64>
    %24 = chlo.digamma %23 : tensor<4x5xf64> -> tensor<4x5xf64>
    %25 = chlo.erfc %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %26 = chlo.square %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %27 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %28 = stablehlo.add %arg0, %27 : tensor<4x5xf64>
    %29 = chlo.next_after %arg0, %28 : tensor<4x5xf64>, tensor<4x5xf64> -> tensor<4x5xf64>
    %cst_6 = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %30 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f64>) -> tensor<4x5xf64>
    %31 = chlo.next_after %arg0, %30 : tensor<4x5xf64>, tensor<4x5xf64> -> tensor<4x5xf64>
    return %0, %1, %4, %7, %8, %9, %13, %16, %20, %24, %25, %26, %29, %31 : tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>, tensor<4x5xf64>
  }
  func.func private @arccosh(%arg0: tensor<4x5xf64>) -> tensor<4x5xf64> {
    %0 = chlo.acosh %arg0 : tensor<4x5xf64> -> tensor<4x5xf64>
    return %0 : tensor<4x5xf64>
  }
}
