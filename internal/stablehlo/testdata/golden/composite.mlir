module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "corpus.scaled_tanh" %arg0 {composite_attributes = {factor = 3.000000e+00 : f64}, decomposition = @corpus.scaled_tanh} : (tensor<3x4xf32>) -> tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
  func.func private @corpus.scaled_tanh(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<3x4xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
}
