module @jit_cnn_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x3x4xf32>, %arg1: tensor<2x6x6x3xf32>) -> (tensor<3x3x3x4xf32> {jax.result_info = "result[0]"}, tensor<2x6x6x3xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convolution(%arg1, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x4xf32>
    %1 = call @relu(%0) : (tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x6x6x4xf32>, tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%1, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %18 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x6x6x4xf32>, tensor<f32>) -> tensor<2x3x3x4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x3x3x4xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<2x3x3x4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x3x3x4xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<2x3x3x4xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.pad %1, %cst_3, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x6x6x4xf32>, tensor<f32>) -> tensor<2x6x6x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = "stablehlo.select_and_scatter"(%10, %9, %cst_4) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %18 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %18 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %18 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x6x6x4xf32>, tensor<2x3x3x4xf32>, tensor<f32>) -> tensor<2x6x6x4xf32>
    %12 = stablehlo.slice %11 [0:2, 0:6, 0:6, 0:4] : (tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %14 = stablehlo.select %3, %12, %13 : tensor<2x6x6x4xi1>, tensor<2x6x6x4xf32>
    %15 = stablehlo.convolution(%arg1, %14) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x3xf32>, tensor<2x6x6x4xf32>) -> tensor<3x3x3x4xf32>
    %16 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x3x3x4xf32>
    %17 = stablehlo.convolution(%14, %16) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x4xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x3xf32>
    return %15, %17 : tensor<3x3x3x4xf32>, tensor<2x6x6x3xf32>
  }
  func.func private @relu(%arg0: tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x6x6x4xf32>
    return %1 : tensor<2x6x6x4xf32>
  }
}
