module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xcomplex<f32>>, %arg2: tensor<2xcomplex<f64>>) -> (tensor<3x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<3x4xf32> {jax.result_info = "result[1]"}, tensor<3x3xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<2xcomplex<f64>> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3x4xf32>) -> tensor<3x4xcomplex<f32>>
    %1 = stablehlo.multiply %0, %arg1 : tensor<3x4xcomplex<f32>>
    %2 = stablehlo.abs %arg1 : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
    %3 = stablehlo.real %arg1 : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
    %4 = stablehlo.imag %arg1 : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
    %5 = stablehlo.negate %4 : tensor<3x4xf32>
    %6 = stablehlo.complex %3, %5 : tensor<3x4xcomplex<f32>>
    %7 = stablehlo.transpose %6, dims = [1, 0] : (tensor<3x4xcomplex<f32>>) -> tensor<4x3xcomplex<f32>>
    %8 = stablehlo.dot_general %arg1, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xcomplex<f32>>, tensor<4x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
    %9 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x4xf32>) -> tensor<4xf32>
    %11 = call @fft(%10) : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %12 = stablehlo.multiply %arg2, %arg2 : tensor<2xcomplex<f64>>
    return %1, %2, %8, %11, %12 : tensor<3x4xcomplex<f32>>, tensor<3x4xf32>, tensor<3x3xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<2xcomplex<f64>>
  }
  func.func private @fft(%arg0: tensor<4xf32>) -> tensor<4xcomplex<f32>> {
    %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
    %1 = stablehlo.fft %0, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    return %1 : tensor<4xcomplex<f32>>
  }
}
