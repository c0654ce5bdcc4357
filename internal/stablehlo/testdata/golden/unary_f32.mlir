module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<4x5xf32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}, tensor<4x5xf32> {jax.result_info = "result[2]"}, tensor<4x5xf32> {jax.result_info = "result[3]"}, tensor<4x5xf32> {jax.result_info = "result[4]"}, tensor<4x5xf32> {jax.result_info = "result[5]"}, tensor<4x5xf32> {jax.result_info = "result[6]"}, tensor<4x5xf32> {jax.result_info = "result[7]"}, tensor<4x5xf32> {jax.result_info = "result[8]"}, tensor<4x5xf32> {jax.result_info = "result[9]"}, tensor<4x5xf32> {jax.result_info = "result[10]"}, tensor<4x5xf32> {jax.result_info = "result[11]"}, tensor<4x5xf32> {jax.result_info = "result[12]"}, tensor<4x5xf32> {jax.result_info = "result[13]"}, tensor<4x5xf32> {jax.result_info = "result[14]"}, tensor<4x5xf32> {jax.result_info = "result[15]"}, tensor<4x5xf32> {jax.result_info = "result[16]"}, tensor<4x5xf32> {jax.result_info = "result[17]"}, tensor<4x5xf32> {jax.result_info = "result[18]"}, tensor<4x5xi1> {jax.result_info = "result[19]"}) {
    %0 = stablehlo.negate %arg0 : tensor<4x5xf32>
    %1 = stablehlo.abs %arg0 : tensor<4x5xf32>
    %2 = stablehlo.sign %arg0 : tensor<4x5xf32>
    %3 = stablehlo.exponential %arg0 : tensor<4x5xf32>
    %4 = stablehlo.exponential_minus_one %arg0 : tensor<4x5xf32>
    %5 = stablehlo.log %arg1 : tensor<4x5xf32>
    %6 = stablehlo.log_plus_one %arg1 : tensor<4x5xf32>
    %7 = stablehlo.negate %arg0 : tensor<4x5xf32>
    %8 = stablehlo.exponential %7 : tensor<4x5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %10 = stablehlo.add %9, %8 : tensor<4x5xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %12 = stablehlo.divide %11, %10 : tensor<4x5xf32>
    %13 = stablehlo.sqrt %arg1 : tensor<4x5xf32>
    %14 = stablehlo.rsqrt %arg1 : tensor<4x5xf32>
    %15 = stablehlo.cbrt %arg0 : tensor<4x5xf32>
    %16 = stablehlo.tanh %arg0 : tensor<4x5xf32>
    %17 = stablehlo.sine %arg0 : tensor<4x5xf32>
    %18 = stablehlo.cosine %arg0 : tensor<4x5xf32>
    %19 = stablehlo.tan %arg0 : tensor<4x5xf32>
    %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %21 = stablehlo.multiply %arg0, %20 : tensor<4x5xf32>
    %22 = stablehlo.floor %21 : tensor<4x5xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %24 = stablehlo.multiply %arg0, %23 : tensor<4x5xf32>
    %25 = stablehlo.ceil %24 : tensor<4x5xf32>
    %cst_3 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %27 = stablehlo.multiply %arg0, %26 : tensor<4x5xf32>
    %28 = stablehlo.round_nearest_afz %27 : tensor<4x5xf32>
    %cst_4 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %30 = stablehlo.multiply %arg0, %29 : tensor<4x5xf32>
    %31 = stablehlo.round_nearest_even %30 : tensor<4x5xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4x5xf32>
    %33 = stablehlo.compare GT, %arg0, %32, FLOAT : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xi1>
    %34 = stablehlo.convert %33 : (tensor<4x5xi1>) -> tensor<4x5xf32>
    %35 = stablehlo.divide %arg0, %34 : tensor<4x5xf32>
    %36 = stablehlo.is_finite %35 : (tensor<4x5xf32>) -> tensor<4x5xi1>
    return %0, %1, %2, %3, %4, %5, %6, %12, %13, %14, %15, %16, %17, %18, %19, %22, %25, %28, %31, %36 : tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<4x5xi1>
  }
}
