module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<4x8xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, tensor<4xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, tensor<f32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = sdy.sharding_constraint %arg1 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4x8xf32>
    %2 = sdy.sharding_constraint %1 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %5 = stablehlo.add %2, %4 : tensor<4x8xf32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{"x"}]> : tensor<4xf32>
    %9 = sdy.sharding_constraint %arg1 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %10 = stablehlo.multiply %arg0, %9 : tensor<4x8xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{"x"}, {"y"}]> : tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<f32>
    %13 = sdy.sharding_constraint %12 <@mesh, []> : tensor<f32>
    return %6, %8, %13 : tensor<4x8xf32>, tensor<4xf32>, tensor<f32>
  }
}
