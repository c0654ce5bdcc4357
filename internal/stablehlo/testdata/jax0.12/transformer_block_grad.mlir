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
    %81 = stablehlo.abs %79 : tensor<6x64xf32>
    %cst_16 = stablehlo.constant dense<1.100000e+01> : tensor<f32>
    %82 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %83 = stablehlo.minimum %81, %82 : tensor<6x64xf32>
    %84 = stablehlo.bitcast_convert %83 : (tensor<6x64xf32>) -> tensor<6x64xui32>
    %c_17 = stablehlo.constant dense<4294963200> : tensor<ui32>
    %85 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<ui32>) -> tensor<6x64xui32>
    %86 = stablehlo.and %84, %85 : tensor<6x64xui32>
    %87 = stablehlo.bitcast_convert %86 : (tensor<6x64xui32>) -> tensor<6x64xf32>
    %88 = stablehlo.subtract %83, %87 : tensor<6x64xf32>
    %89 = stablehlo.multiply %87, %87 : tensor<6x64xf32>
    %90 = stablehlo.add %83, %87 : tensor<6x64xf32>
    %91 = stablehlo.multiply %88, %90 : tensor<6x64xf32>
    %92 = stablehlo.negate %89 : tensor<6x64xf32>
    %93 = stablehlo.exponential %92 : tensor<6x64xf32>
    %94 = stablehlo.exponential %92 {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<HIGHEST>>} : tensor<6x64xf32>
    %95 = stablehlo.negate %91 : tensor<6x64xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_19 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_20 = stablehlo.constant dense<0.166666672> : tensor<f32>
    %cst_21 = stablehlo.constant dense<0.0416666679> : tensor<f32>
    %cst_22 = stablehlo.constant dense<0.00833333377> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %97 = stablehlo.multiply %96, %95 : tensor<6x64xf32>
    %98 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %99 = stablehlo.add %97, %98 : tensor<6x64xf32>
    %100 = stablehlo.multiply %99, %95 : tensor<6x64xf32>
    %101 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %102 = stablehlo.add %100, %101 : tensor<6x64xf32>
    %103 = stablehlo.multiply %102, %95 : tensor<6x64xf32>
    %104 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %105 = stablehlo.add %103, %104 : tensor<6x64xf32>
    %106 = stablehlo.multiply %105, %95 : tensor<6x64xf32>
    %107 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %108 = stablehlo.add %106, %107 : tensor<6x64xf32>
    %109 = stablehlo.multiply %95, %108 : tensor<6x64xf32>
    %110 = stablehlo.multiply %94, %109 : tensor<6x64xf32>
    %111 = stablehlo.add %94, %110 : tensor<6x64xf32>
    %112 = stablehlo.multiply %76, %80 : tensor<6x64xf32>
    %113 = stablehlo.dot_general %112, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<64x16xf32>) -> tensor<6x16xf32>
    %114 = stablehlo.add %52, %113 : tensor<6x16xf32>
    %115 = stablehlo.multiply %114, %114 : tensor<6x16xf32>
    %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %116 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %117 = stablehlo.multiply %116, %114 : tensor<6x16xf32>
    %cst_24 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.reduce(%115 init: %cst_24) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %120 = stablehlo.multiply %119, %117 : tensor<6x16xf32>
    %121 = stablehlo.dot_general %120, %112, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<6x64xf32>) -> tensor<16x64xf32>
    %122 = stablehlo.transpose %121, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %123 = stablehlo.dot_general %120, %arg5, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<64x16xf32>) -> tensor<6x64xf32>
    %124 = stablehlo.multiply %76, %123 : tensor<6x64xf32>
    %125 = stablehlo.multiply %123, %80 : tensor<6x64xf32>
    %cst_26 = stablehlo.constant dense<-1.12837923> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %127 = stablehlo.multiply %126, %124 : tensor<6x64xf32>
    %128 = stablehlo.multiply %127, %111 : tensor<6x64xf32>
    %cst_27 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %129 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %130 = stablehlo.multiply %128, %129 : tensor<6x64xf32>
    %131 = stablehlo.negate %130 : tensor<6x64xf32>
    %cst_28 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<6x64xf32>
    %133 = stablehlo.multiply %132, %125 : tensor<6x64xf32>
    %134 = stablehlo.add %131, %133 : tensor<6x64xf32>
    %135 = stablehlo.dot_general %134, %73, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<6x16xf32>) -> tensor<64x16xf32>
    %136 = stablehlo.transpose %135, dims = [1, 0] : (tensor<64x16xf32>) -> tensor<16x64xf32>
    %137 = stablehlo.dot_general %134, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x64xf32>, tensor<16x64xf32>) -> tensor<6x16xf32>
    %cst_29 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %138 = stablehlo.reduce(%137 init: %cst_29) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %139 = stablehlo.reshape %138 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %140 = stablehlo.reduce(%139 init: %cst_30) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %141 = stablehlo.multiply %67, %137 : tensor<6x16xf32>
    %cst_31 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.reduce(%141 init: %cst_31) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %143 = stablehlo.reshape %142 : (tensor<16xf32>) -> tensor<1x16xf32>
    %144 = stablehlo.broadcast_in_dim %68, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %145 = stablehlo.multiply %137, %144 : tensor<6x16xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %146 = stablehlo.reduce(%143 init: %cst_32) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %147 = stablehlo.multiply %59, %145 : tensor<6x16xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %148 = stablehlo.reduce(%147 init: %cst_33) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %149 = stablehlo.reshape %148 : (tensor<6xf32>) -> tensor<6x1xf32>
    %150 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %151 = stablehlo.multiply %145, %150 : tensor<6x16xf32>
    %152 = stablehlo.multiply %149, %65 : tensor<6x1xf32>
    %153 = stablehlo.negate %151 : tensor<6x16xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %154 = stablehlo.reduce(%153 init: %cst_34) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %155 = stablehlo.reshape %154 : (tensor<6xf32>) -> tensor<6x1xf32>
    %156 = stablehlo.add %120, %151 : tensor<6x16xf32>
    %157 = call @_var_3(%57#1, %57#2, %57#3, %152) : (tensor<6x16xf32>, tensor<f32>, tensor<i1>, tensor<6x1xf32>) -> tensor<6x16xf32>
    %158 = stablehlo.add %156, %157 : tensor<6x16xf32>
    %cst_35 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %159 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %160 = stablehlo.divide %155, %159 : tensor<6x1xf32>
    %cst_36 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %161 = stablehlo.reduce(%160 init: %cst_36) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %162 = stablehlo.broadcast_in_dim %161, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %163 = stablehlo.add %158, %162 : tensor<6x16xf32>
    %164 = stablehlo.dot_general %163, %50, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<16x16xf32>
    %165 = stablehlo.transpose %164, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %166 = stablehlo.dot_general %163, %arg6, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x16xf32>, tensor<16x16xf32>) -> tensor<6x16xf32>
    %167 = stablehlo.reshape %166 : (tensor<6x16xf32>) -> tensor<6x2x8xf32>
    %168 = stablehlo.transpose %167, dims = [1, 0, 2] : (tensor<6x2x8xf32>) -> tensor<2x6x8xf32>
    %169 = stablehlo.dot_general %168, %44, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x6xf32>) -> tensor<2x8x6xf32>
    %170 = stablehlo.transpose %169, dims = [0, 2, 1] : (tensor<2x8x6xf32>) -> tensor<2x6x8xf32>
    %171 = stablehlo.dot_general %168, %27, batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x6x6xf32>
    %172 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %173 = stablehlo.multiply %171, %172 : tensor<2x6x6xf32>
    %174 = stablehlo.multiply %173, %40 : tensor<2x6x6xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %175 = stablehlo.reduce(%174 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<2x6x6xf32>, tensor<f32>) -> tensor<2x6xf32>
    %176 = stablehlo.reshape %175 : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %177 = stablehlo.negate %176 : tensor<2x6x1xf32>
    %178 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x6xf32>
    %179 = stablehlo.divide %171, %178 : tensor<2x6x6xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.reduce(%177 init: %cst_38) applies stablehlo.add across dimensions = [2] : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6xf32>
    %181 = stablehlo.broadcast_in_dim %180, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x6xf32>
    %182 = stablehlo.add %179, %181 : tensor<2x6x6xf32>
    %183 = stablehlo.multiply %182, %40 : tensor<2x6x6xf32>
    %184 = call @_where_5(%33#1, %183) : (tensor<2x6x6xi1>, tensor<2x6x6xf32>) -> tensor<2x6x6xf32>
    %cst_39 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %185 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<2x6x6xf32>
    %186 = stablehlo.divide %184, %185 : tensor<2x6x6xf32>
    %187 = stablehlo.dot_general %186, %23, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %188 = stablehlo.dot_general %186, %25, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x6xf32>, tensor<2x6x8xf32>) -> tensor<2x6x8xf32>
    %189 = stablehlo.transpose %170, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %190 = stablehlo.reshape %189 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %191 = stablehlo.transpose %187, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %192 = stablehlo.reshape %191 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %193 = stablehlo.transpose %188, dims = [1, 0, 2] : (tensor<2x6x8xf32>) -> tensor<6x2x8xf32>
    %194 = stablehlo.reshape %193 : (tensor<6x2x8xf32>) -> tensor<6x16xf32>
    %195 = stablehlo.concatenate %194, %192, %190, dim = 1 : (tensor<6x16xf32>, tensor<6x16xf32>, tensor<6x16xf32>) -> tensor<6x48xf32>
    %196 = stablehlo.dot_general %195, %17, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x48xf32>, tensor<6x16xf32>) -> tensor<48x16xf32>
    %197 = stablehlo.transpose %196, dims = [1, 0] : (tensor<48x16xf32>) -> tensor<16x48xf32>
    %198 = stablehlo.dot_general %195, %arg7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x48xf32>, tensor<16x48xf32>) -> tensor<6x16xf32>
    %cst_40 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %199 = stablehlo.reduce(%198 init: %cst_40) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %200 = stablehlo.reshape %199 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %201 = stablehlo.reduce(%200 init: %cst_41) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %202 = stablehlo.multiply %11, %198 : tensor<6x16xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %203 = stablehlo.reduce(%202 init: %cst_42) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %204 = stablehlo.reshape %203 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %205 = stablehlo.reduce(%204 init: %cst_43) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %118, %201, %140, %205, %146, %136, %122, %165, %197 : tensor<f32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16x64xf32>, tensor<64x16xf32>, tensor<16x16xf32>, tensor<16x48xf32>
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
