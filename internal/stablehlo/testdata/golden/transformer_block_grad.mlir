module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<16x64xf32>, %arg5: tensor<64x16xf32>, %arg6: tensor<16x16xf32>, %arg7: tensor<16x48xf32>, %arg8: tensor<6x16xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]['b1']"}, tensor<16xf32> {jax.result_info = "result[1]['b2']"}, tensor<16xf32> {jax.result_info = "result[1]['g1']"}, tensor<16xf32> {jax.result_info = "result[1]['g2']"}, tensor<16x64xf32> {jax.result_info = "result[1]['w1']"}, tensor<64x16xf32> {jax.result_info = "result[1]['w2']"}, tensor<16x16xf32> {jax.result_info = "result[1]['wo']"}, tensor<16x48xf32> {jax.result_info = "result[1]['wqkv']"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg8 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_var(%arg8, %c) : (tensor<6x16xf32>, tensor<i32>) -> tensor<6x1xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %6 = stablehlo.subtract %arg8, %5 : tensor<6x16xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %8 = stablehlo.add %4, %7 : tensor<6x1xf32>
    %9 = stablehlo.rsqrt %8 : tensor<6x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %11 = stablehlo.multiply %6, %10 : tensor<6x16xf32>
    %12 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %14 = stablehlo.multiply %11, %13 : tensor<6x16xf32>
    %15 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %17 = stablehlo.add %14, %16 : tensor<6x16xf32>
    %18 = stablehlo.dot_general %17, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x48xf32>) -> tensor<6x48xf32>
    %19 = stablehlo.slice %18 [0:6, 0:16] : (tensor<6x48xf32>) -> tensor<6x16xf32>
    %20 = stablehlo.slice %18 [0:6, 16:32] : (tensor<6x48xf32>) -> tensor<6x16xf32>
    %21 = stablehlo.slice %18 [0:6, 32:48] : (tensor<6x48xf32>) -> tensor<6x16xf32>
    %22 = stablehlo.reshape %19 : (tensor<6x16xf32>) -> tensor<6x2x8xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0, 2] : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
    %24 = stablehlo.reshape %20 : (tensor<6x16xf32>) -> tensor<6x2x8xf32>
    %25 = stablehlo.transpose %24, dims = [1, 0, 2] : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
    %26 = stablehlo.reshape %21 : (tensor<6x16xf32>) -> tensor<6x2x8xf32>
    %27 = stablehlo.transpose %26, dims = [1, 0, 2] : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
    %28 = stablehlo.dot_general %23, %25, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
    %cst_2 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %30 = stablehlo.divide %28, %29 : tensor<2x6x6xf32>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %31 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %32 = call @tril(%31) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_4 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %33:2 = call @_where_0(%32, %30, %cst_4) : (tensor<6x6xi1>, tensor<2x6x6xf32>, tensor<f32>) -> (tensor<2x6x6xf32>, tensor<2x6x6xi1>)
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %34 = stablehlo.reduce(%33#0 init: %cst_5) applies stablehlo.maximum across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x6xf32>
    %36 = stablehlo.maximum %35, %34 : tensor<2x6xf32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %39 = stablehlo.subtract %33#0, %38 : tensor<2x6x6xf32>
    %40 = stablehlo.exponential %39 : tensor<2x6x6xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.reduce(%40 init: %cst_7) applies stablehlo.add across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %44 = stablehlo.divide %40, %43 : tensor<2x6x6xf32>
    %45 = stablehlo.multiply %42, %42 : tensor<2x6x1xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %46 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %47 = stablehlo.divide %46, %45 : tensor<2x6x1xf32>
    %48 = stablehlo.dot_general %44, %27, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %49 = stablehlo.transpose %48, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %50 = stablehlo.reshape %49 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %51 = stablehlo.dot_general %50, %arg6, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
    %52 = stablehlo.add %arg8, %51 : tensor<6x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_10 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %56 = stablehlo.divide %54, %55 : tensor<6x1xf32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %57:4 = call @_var_1(%52, %c_11) : (tensor<6x16xf32>, tensor<i32>) -> (tensor<6x1xf32>, tensor<6x16xf32>, tensor<f32>, tensor<i1>)
    %58 = stablehlo.broadcast_in_dim %56, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %59 = stablehlo.subtract %52, %58 : tensor<6x16xf32>
    %cst_12 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %61 = stablehlo.add %57#0, %60 : tensor<6x1xf32>
    %62 = stablehlo.rsqrt %61 : tensor<6x1xf32>
    %63 = stablehlo.divide %62, %61 : tensor<6x1xf32>
    %cst_13 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %65 = stablehlo.multiply %64, %63 : tensor<6x1xf32>
    %66 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %67 = stablehlo.multiply %59, %66 : tensor<6x16xf32>
    %68 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %70 = stablehlo.multiply %67, %69 : tensor<6x16xf32>
    %71 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %72 = stablehlo.broadcast_in_dim %71, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %73 = stablehlo.add %70, %72 : tensor<6x16xf32>
    %74 = stablehlo.dot_general %73, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x64xf32>) -> tensor<6x64xf32>
    %cst_14 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %76 = stablehlo.multiply %75, %74 : tensor<6x64xf32>
    %77 = stablehlo.negate %74 : tensor<6x64xf32>
    %cst_15 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %79 = stablehlo.multiply %77, %78 : tensor<6x64xf32>
    %80 = chlo.erfc %79 : tensor<6x64xf32> -> tensor<6x64xf32>
    %81 = chlo.square %79 : tensor<6x64xf32> -> tensor<6x64xf32>
    %82 = stablehlo.negate %81 : tensor<6x64xf32>
    %83 = stablehlo.exponential %82 : tensor<6x64xf32>
    %84 = stablehlo.multiply %76, %80 : tensor<6x64xf32>
    %85 = stablehlo.dot_general %84, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<64x16xf32>) -> tensor<6x16xf32>
    %86 = stablehlo.add %52, %85 : tensor<6x16xf32>
    %87 = stablehlo.multiply %86, %86 : tensor<6x16xf32>
    %cst_16 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %89 = stablehlo.multiply %88, %86 : tensor<6x16xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90 = stablehlo.reduce(%87 init: %cst_17) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %92 = stablehlo.multiply %91, %89 : tensor<6x16xf32>
    %93 = stablehlo.dot_general %92, %84, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<6x64xf32>) -> tensor<16x64xf32>
    %94 = stablehlo.transpose %93, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %95 = stablehlo.dot_general %92, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<64x16xf32>) -> tensor<6x64xf32>
    %96 = stablehlo.multiply %76, %95 : tensor<6x64xf32>
    %97 = stablehlo.multiply %95, %80 : tensor<6x64xf32>
    %cst_19 = stablehlo.constant dense<-1.12837923> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %99 = stablehlo.multiply %98, %96 : tensor<6x64xf32>
    %100 = stablehlo.multiply %99, %83 : tensor<6x64xf32>
    %cst_20 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %101 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %102 = stablehlo.multiply %100, %101 : tensor<6x64xf32>
    %103 = stablehlo.negate %102 : tensor<6x64xf32>
    %cst_21 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %105 = stablehlo.multiply %104, %97 : tensor<6x64xf32>
    %106 = stablehlo.add %103, %105 : tensor<6x64xf32>
    %107 = stablehlo.dot_general %106, %73, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<6x16xf32>) -> tensor<64x16xf32>
    %108 = stablehlo.transpose %107, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %109 = stablehlo.dot_general %106, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<16x64xf32>) -> tensor<6x16xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %110 = stablehlo.reduce(%109 init: %cst_22) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %111 = stablehlo.reshape %110 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %112 = stablehlo.reduce(%111 init: %cst_23) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %113 = stablehlo.multiply %67, %109 : tensor<6x16xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %114 = stablehlo.reduce(%113 init: %cst_24) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %115 = stablehlo.reshape %114 : (tensor<16xf32>) -> tensor<1x16xf32>
    %116 = stablehlo.broadcast_in_dim %68, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %117 = stablehlo.multiply %109, %116 : tensor<6x16xf32>
    %cst_25 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%115 init: %cst_25) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %119 = stablehlo.multiply %59, %117 : tensor<6x16xf32>
    %cst_26 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %120 = stablehlo.reduce(%119 init: %cst_26) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %121 = stablehlo.reshape %120 : (tensor<6xf32>) -> tensor<6x1xf32>
    %122 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %123 = stablehlo.multiply %117, %122 : tensor<6x16xf32>
    %124 = stablehlo.multiply %121, %65 : tensor<6x1xf32>
    %125 = stablehlo.negate %123 : tensor<6x16xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %126 = stablehlo.reduce(%125 init: %cst_27) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %127 = stablehlo.reshape %126 : (tensor<6xf32>) -> tensor<6x1xf32>
    %128 = stablehlo.add %92, %123 : tensor<6x16xf32>
    %129 = call @_var_3(%57#1, %57#2, %57#3, %124) : (tensor<6x16xf32>, tensor<f32>, tensor<i1>, tensor<6x1xf32>) -> tensor<6x16xf32>
    %130 = stablehlo.add %128, %129 : tensor<6x16xf32>
    %cst_28 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %131 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %132 = stablehlo.divide %127, %131 : tensor<6x1xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %133 = stablehlo.reduce(%132 init: %cst_29) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %135 = stablehlo.add %130, %134 : tensor<6x16xf32>
    %136 = stablehlo.dot_general %135, %50, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<16x16xf32>
    %137 = stablehlo.transpose %136, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %138 = stablehlo.dot_general %135, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
    %139 = stablehlo.reshape %138 : (tensor<6x16xf32>) -> tensor<6x2x8xf32>
    %140 = stablehlo.transpose %139, dims = [1, 0, 2] : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
    %141 = stablehlo.dot_general %140, %44, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x6xf32>) -> tensor<2x8x6xf32>
    %142 = stablehlo.transpose %141, dims = [0, 2, 1] : (tensor<2x8x6xf32>) -> tensor<2x6x8xf32>
    %143 = stablehlo.dot_general %140, %27, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
    %144 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %145 = stablehlo.multiply %143, %144 : tensor<2x6x6xf32>
    %146 = stablehlo.multiply %145, %40 : tensor<2x6x6xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %147 = stablehlo.reduce(%146 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %148 = stablehlo.reshape %147 : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %149 = stablehlo.negate %148 : tensor<2x6x1xf32>
    %150 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %151 = stablehlo.divide %143, %150 : tensor<2x6x6xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %152 = stablehlo.reduce(%149 init: %cst_31) applies stablehlo.add across dimensions = [2] : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6xf32>
    %153 = stablehlo.broadcast_in_dim %152, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x6xf32>
    %154 = stablehlo.add %151, %153 : tensor<2x6x6xf32>
    %155 = stablehlo.multiply %154, %40 : tensor<2x6x6xf32>
    %156 = call @_where_5(%33#1, %155) : (tensor<2x6x6xi1>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
    %cst_32 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %157 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %158 = stablehlo.divide %156, %157 : tensor<2x6x6xf32>
    %159 = stablehlo.dot_general %158, %23, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %160 = stablehlo.dot_general %158, %25, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %161 = stablehlo.transpose %142, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %162 = stablehlo.reshape %161 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %163 = stablehlo.transpose %159, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %164 = stablehlo.reshape %163 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %165 = stablehlo.transpose %160, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %166 = stablehlo.reshape %165 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %167 = stablehlo.concatenate %166, %164, %162, dim = 1 : (tensor<6x16xf32>, tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<6x48xf32>
    %168 = stablehlo.dot_general %167, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x48xf32>, tensor<6x16xf32>) -> tensor<48x16xf32>
    %169 = stablehlo.transpose %168, dims = [1, 0] : (tensor<48x16xf32>) -> tensor<16x48xf32>
    %170 = stablehlo.dot_general %167, %arg7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x48xf32>, tensor<16x48xf32>) -> tensor<6x16xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %171 = stablehlo.reduce(%170 init: %cst_33) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %172 = stablehlo.reshape %171 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %173 = stablehlo.reduce(%172 init: %cst_34) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %174 = stablehlo.multiply %11, %170 : tensor<6x16xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %175 = stablehlo.reduce(%174 init: %cst_35) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %176 = stablehlo.reshape %175 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%176 init: %cst_36) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %90, %173, %112, %177, %118, %108, %94, %137, %169 : tensor<f32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<16x16xf32>, tensor<16x48xf32>
  }
  func.func private @_var(%arg0: tensor<6x16xf32>, %arg1: tensor<i32>) -> tensor<6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x16xf32>
    %6 = chlo.square %5 : tensor<6x16xf32> -> tensor<6x16xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<6x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where(%13, %12, %cst_4) : (tensor<i1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
    return %14 : tensor<6x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<6x1xf32>, %arg2: tensor<f32>) -> tensor<6x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<6x1xf32>
    return %2 : tensor<6x1xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where_0(%arg0: tensor<6x6xi1>, %arg1: tensor<2x6x6xf32>, %arg2: tensor<f32>) -> (tensor<2x6x6xf32>, tensor<2x6x6xi1>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1, 2] : (tensor<6x6xi1>) -> tensor<2x6x6xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x6x6xi1>, tensor<2x6x6xf32>
    return %3, %1 : tensor<2x6x6xf32>, tensor<2x6x6xi1>
  }
  func.func private @_var_1(%arg0: tensor<6x16xf32>, %arg1: tensor<i32>) -> (tensor<6x1xf32>, tensor<6x16xf32>, tensor<f32>, tensor<i1>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x16xf32>
    %6 = chlo.square %5 : tensor<6x16xf32> -> tensor<6x16xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<6x16xf32>
    %9 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %13 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %14 = stablehlo.divide %12, %13 : tensor<6x1xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.compare GT, %10, %cst_4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %16 = call @_where_2(%15, %14, %cst_5) : (tensor<i1>, tensor<6x1xf32>, tensor<f32>) -> tensor<6x1xf32>
    return %16, %8, %10, %15 : tensor<6x1xf32>, tensor<6x16xf32>, tensor<f32>, tensor<i1>
  }
  func.func private @_where_2(%arg0: tensor<i1>, %arg1: tensor<6x1xf32>, %arg2: tensor<f32>) -> tensor<6x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<6x1xf32>
    return %2 : tensor<6x1xf32>
  }
  func.func private @_var_3(%arg0: tensor<6x16xf32>, %arg1: tensor<f32>, %arg2: tensor<i1>, %arg3: tensor<6x1xf32>) -> tensor<6x16xf32> {
    %0 = call @_where_4(%arg2, %arg3) : (tensor<i1>, tensor<6x1xf32>) -> tensor<6x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.divide %0, %1 : tensor<6x1xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %5 = stablehlo.multiply %4, %arg0 : tensor<6x16xf32>
    %6 = stablehlo.negate %5 : tensor<6x16xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.reshape %7 : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_1 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<6x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %13 = stablehlo.add %5, %12 : tensor<6x16xf32>
    return %13 : tensor<6x16xf32>
  }
  func.func private @_where_4(%arg0: tensor<i1>, %arg1: tensor<6x1xf32>) -> tensor<6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<i1>, tensor<6x1xf32>
    return %1 : tensor<6x1xf32>
  }
  func.func private @_where_5(%arg0: tensor<2x6x6xi1>, %arg1: tensor<2x6x6xf32>) -> tensor<2x6x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<2x6x6xi1>, tensor<2x6x6xf32>
    return %1 : tensor<2x6x6xf32>
  }
}
