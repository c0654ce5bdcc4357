module @jit__lambda attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %2 = stablehlo.multiply %arg1, %1 : tensor<2xf32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %3 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
