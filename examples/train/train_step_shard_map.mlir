module @jit_sharded_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32x1xf32>, %arg3: tensor<1xf32>, %arg4: tensor<64x8xf32>, %arg5: tensor<64x1xf32>) -> (tensor<8x32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32x1xf32> {jax.result_info = "result[2]"}, tensor<1xf32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}) {
    %0:5 = sdy.manual_computation(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5) in_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{"data"}, {}]>, <@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, [{}, {}]>, <@mesh, [{}]>, <@mesh, []>] manual_axes={"data"} (%arg6: tensor<8x32xf32>, %arg7: tensor<32xf32>, %arg8: tensor<32x1xf32>, %arg9: tensor<1xf32>, %arg10: tensor<8x8xf32>, %arg11: tensor<8x1xf32>) {
      %1 = stablehlo.dot_general %arg10, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
      %2 = stablehlo.broadcast_in_dim %arg7, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
      %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<8x32xf32>
      %4 = stablehlo.add %1, %3 : tensor<8x32xf32>
      %5 = stablehlo.tanh %4 : tensor<8x32xf32>
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %7 = stablehlo.subtract %6, %5 : tensor<8x32xf32>
      %8 = stablehlo.dot_general %5, %arg8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<32x1xf32>) -> tensor<8x1xf32>
      %9 = stablehlo.broadcast_in_dim %arg9, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<8x1xf32>
      %11 = stablehlo.add %8, %10 : tensor<8x1xf32>
      %12 = stablehlo.subtract %11, %arg11 : tensor<8x1xf32>
      %13 = stablehlo.multiply %12, %12 : tensor<8x1xf32>
      %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
      %15 = stablehlo.multiply %14, %12 : tensor<8x1xf32>
      %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %16 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<f32>
      %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %17 = stablehlo.divide %16, %cst_2 : tensor<f32>
      %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %cst_4 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %18 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
      %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<8x1xf32>
      %20 = stablehlo.multiply %19, %15 : tensor<8x1xf32>
      %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %21 = stablehlo.reduce(%20 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<8x1xf32>, tensor<f32>) -> tensor<1xf32>
      %22 = stablehlo.reshape %21 : (tensor<1xf32>) -> tensor<1x1xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %23 = stablehlo.reduce(%22 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1xf32>, tensor<f32>) -> tensor<f32>
      %24 = stablehlo.broadcast_in_dim %23, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %25 = stablehlo.dot_general %20, %5, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x1xf32>, tensor<8x32xf32>) -> tensor<1x32xf32>
      %26 = stablehlo.transpose %25, dims = [1, 0] : (tensor<1x32xf32>) -> tensor<32x1xf32>
      %27 = stablehlo.dot_general %20, %arg8, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x1xf32>, tensor<32x1xf32>) -> tensor<8x32xf32>
      %28 = stablehlo.multiply %27, %7 : tensor<8x32xf32>
      %29 = stablehlo.multiply %28, %5 : tensor<8x32xf32>
      %30 = stablehlo.add %28, %29 : tensor<8x32xf32>
      %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %31 = stablehlo.reduce(%30 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<8x32xf32>, tensor<f32>) -> tensor<32xf32>
      %32 = stablehlo.reshape %31 : (tensor<32xf32>) -> tensor<1x32xf32>
      %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %33 = stablehlo.reduce(%32 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
      %34 = stablehlo.dot_general %30, %arg10, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xf32>, tensor<8x8xf32>) -> tensor<32x8xf32>
      %35 = stablehlo.transpose %34, dims = [1, 0] : (tensor<32x8xf32>) -> tensor<8x32xf32>
      %36 = "stablehlo.all_reduce"(%35) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %62 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %62 : tensor<f32>
      }) : (tensor<8x32xf32>) -> tensor<8x32xf32>
      %37 = "stablehlo.all_reduce"(%33) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %62 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %62 : tensor<f32>
      }) : (tensor<32xf32>) -> tensor<32xf32>
      %38 = "stablehlo.all_reduce"(%26) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %62 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %62 : tensor<f32>
      }) : (tensor<32x1xf32>) -> tensor<32x1xf32>
      %39 = "stablehlo.all_reduce"(%24) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %62 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %62 : tensor<f32>
      }) : (tensor<1xf32>) -> tensor<1xf32>
      %cst_9 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
      %40 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %41 = stablehlo.multiply %40, %36 : tensor<8x32xf32>
      %cst_10 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %42 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
      %43 = stablehlo.divide %41, %42 : tensor<8x32xf32>
      %44 = stablehlo.subtract %arg6, %43 : tensor<8x32xf32>
      %cst_11 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
      %45 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %46 = stablehlo.multiply %45, %37 : tensor<32xf32>
      %cst_12 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %47 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<32xf32>
      %48 = stablehlo.divide %46, %47 : tensor<32xf32>
      %49 = stablehlo.subtract %arg7, %48 : tensor<32xf32>
      %cst_13 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
      %50 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
      %51 = stablehlo.multiply %50, %38 : tensor<32x1xf32>
      %cst_14 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %52 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
      %53 = stablehlo.divide %51, %52 : tensor<32x1xf32>
      %54 = stablehlo.subtract %arg8, %53 : tensor<32x1xf32>
      %cst_15 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
      %55 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %56 = stablehlo.multiply %55, %39 : tensor<1xf32>
      %cst_16 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %57 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %58 = stablehlo.divide %56, %57 : tensor<1xf32>
      %59 = stablehlo.subtract %arg9, %58 : tensor<1xf32>
      %60 = "stablehlo.all_reduce"(%17) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg12: tensor<f32>, %arg13: tensor<f32>):
        %62 = stablehlo.add %arg12, %arg13 : tensor<f32>
        stablehlo.return %62 : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      %cst_17 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %61 = stablehlo.divide %60, %cst_17 : tensor<f32>
      sdy.return %44, %49, %54, %59, %61 : tensor<8x32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<1xf32>, tensor<f32>
    } : (tensor<8x32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<1xf32>, tensor<64x8xf32>, tensor<64x1xf32>) -> (tensor<8x32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<1xf32>, tensor<f32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<8x32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<1xf32>, tensor<f32>
  }
}
