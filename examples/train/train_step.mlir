module @jit_train_step attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=8]> {stablehlo.mesh = {axes = [{name = "data", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg2: tensor<32x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg3: tensor<1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}]>}, %arg4: tensor<64x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg5: tensor<64x1xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x32xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<32xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<32x1xf32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<1xf32> {jax.result_info = "result[3]", sdy.sharding = #sdy.sharding<@mesh, [{}]>}, tensor<f32> {jax.result_info = "result[4]", sdy.sharding = #sdy.sharding<@mesh, []>}) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x8xf32>, tensor<8x32xf32>) -> tensor<64x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<64x32xf32>
    %3 = stablehlo.add %0, %2 : tensor<64x32xf32>
    %4 = stablehlo.tanh %3 : tensor<64x32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<64x32xf32>
    %7 = stablehlo.dot_general %4, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x32xf32>, tensor<32x1xf32>) -> tensor<64x1xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<64x1xf32>
    %10 = stablehlo.add %7, %9 : tensor<64x1xf32>
    %11 = stablehlo.subtract %10, %arg5 : tensor<64x1xf32>
    %12 = stablehlo.multiply %11, %11 : tensor<64x1xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
    %14 = stablehlo.multiply %13, %11 : tensor<64x1xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%12 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<64x1xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %16 = stablehlo.divide %15, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %17 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<64x1xf32>
    %19 = stablehlo.multiply %18, %14 : tensor<64x1xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.reduce(%19 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<64x1xf32>, tensor<f32>) -> tensor<1xf32>
    %21 = stablehlo.reshape %20 : (tensor<1xf32>) -> tensor<1x1xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.reduce(%21 init: %cst_6) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1xf32>, tensor<f32>) -> tensor<f32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %24 = stablehlo.dot_general %19, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x1xf32>, tensor<64x32xf32>) -> tensor<1x32xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0] : (tensor<1x32xf32>) -> tensor<32x1xf32>
    %26 = stablehlo.dot_general %19, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<64x1xf32>, tensor<32x1xf32>) -> tensor<64x32xf32>
    %27 = stablehlo.multiply %26, %6 : tensor<64x32xf32>
    %28 = stablehlo.multiply %27, %4 : tensor<64x32xf32>
    %29 = stablehlo.add %27, %28 : tensor<64x32xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.reduce(%29 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<64x32xf32>, tensor<f32>) -> tensor<32xf32>
    %31 = stablehlo.reshape %30 : (tensor<32xf32>) -> tensor<1x32xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x32xf32>, tensor<f32>) -> tensor<32xf32>
    %33 = stablehlo.dot_general %29, %arg4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x32xf32>, tensor<64x8xf32>) -> tensor<32x8xf32>
    %34 = stablehlo.transpose %33, dims = [1, 0] : (tensor<32x8xf32>) -> tensor<8x32xf32>
    %cst_9 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<8x32xf32>
    %36 = stablehlo.multiply %35, %34 : tensor<8x32xf32>
    %37 = stablehlo.subtract %arg0, %36 : tensor<8x32xf32>
    %cst_10 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %39 = stablehlo.multiply %38, %32 : tensor<32xf32>
    %40 = stablehlo.subtract %arg1, %39 : tensor<32xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<32x1xf32>
    %42 = stablehlo.multiply %41, %25 : tensor<32x1xf32>
    %43 = stablehlo.subtract %arg2, %42 : tensor<32x1xf32>
    %cst_12 = stablehlo.constant dense<5.000000e-02> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %45 = stablehlo.multiply %44, %23 : tensor<1xf32>
    %46 = stablehlo.subtract %arg3, %45 : tensor<1xf32>
    return %37, %40, %43, %46, %16 : tensor<8x32xf32>, tensor<32xf32>, tensor<32x1xf32>, tensor<1xf32>, tensor<f32>
  }
}
