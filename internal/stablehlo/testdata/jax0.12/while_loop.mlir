module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<3x4xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<3x4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %c, %iterArg_1 = %arg1) : tensor<i32>, tensor<i32>, tensor<3x4xf32>
    cond {
      %1 = stablehlo.convert %iterArg_0 : tensor<i32>
      %2 = stablehlo.compare LT, %1, %iterArg, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      %cst = stablehlo.constant dense<1.500000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
      %3 = stablehlo.multiply %iterArg_1, %2 : tensor<3x4xf32>
      %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
      %5 = stablehlo.add %3, %4 : tensor<3x4xf32>
      stablehlo.return %iterArg, %1, %5 : tensor<i32>, tensor<i32>, tensor<3x4xf32>
    }
    return %0#1, %0#2 : tensor<i32>, tensor<3x4xf32>
  }
}
