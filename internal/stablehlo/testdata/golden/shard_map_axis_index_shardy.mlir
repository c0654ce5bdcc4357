module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x8xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {"y"}]>] out_shardings=[<@mesh, [{"x"}, {"y"}]>] manual_axes={"x", "y"} (%arg1: tensor<2x2xf32>) {
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<4> : tensor<ui32>
      %1 = stablehlo.partition_id : tensor<ui32>
      %2 = stablehlo.divide %1, %c : tensor<ui32>
      %3 = stablehlo.remainder %2, %c_0 : tensor<ui32>
      %4 = stablehlo.convert %3 : (tensor<ui32>) -> tensor<i32>
      %5 = stablehlo.convert %4 : (tensor<i32>) -> tensor<f32>
      %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
      %6 = stablehlo.multiply %5, %cst : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
      %8 = stablehlo.add %arg1, %7 : tensor<2x2xf32>
      %c_1 = stablehlo.constant dense<4> : tensor<ui32>
      %c_2 = stablehlo.constant dense<2> : tensor<ui32>
      %9 = stablehlo.partition_id : tensor<ui32>
      %10 = stablehlo.divide %9, %c_1 : tensor<ui32>
      %11 = stablehlo.remainder %10, %c_2 : tensor<ui32>
      %12 = stablehlo.convert %11 : (tensor<ui32>) -> tensor<i32>
      %13 = stablehlo.convert %12 : (tensor<i32>) -> tensor<f32>
      %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
      %15 = stablehlo.add %8, %14 : tensor<2x2xf32>
      sdy.return %15 : tensor<2x2xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
