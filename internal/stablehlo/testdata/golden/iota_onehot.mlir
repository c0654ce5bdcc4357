module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xi32>) -> (tensor<2x5xi32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}, tensor<3x4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<10xi32>
    %1 = stablehlo.reshape %0 : (tensor<10xi32>) -> tensor<2x5xi32>
    %2 = call @_one_hot(%arg0) : (tensor<4xi32>) -> tensor<4x5xf32>
    %3 = stablehlo.iota dim = 1 : tensor<3x4xf32>
    return %1, %2, %3 : tensor<2x5xi32>, tensor<4x5xf32>, tensor<3x4xf32>
  }
  func.func private @_one_hot(%arg0: tensor<4xi32>) -> tensor<4x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x5xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<4x1xi32>) -> tensor<4x5xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x5xi32>) -> tensor<4x5xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<4x5xi32>, tensor<4x5xi32>) -> tensor<4x5xi1>
    %5 = stablehlo.convert %4 : (tensor<4x5xi1>) -> tensor<4x5xf32>
    return %5 : tensor<4x5xf32>
  }
}
