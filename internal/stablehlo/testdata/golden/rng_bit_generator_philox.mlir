module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xui64>) -> (tensor<2xui64> {jax.result_info = "result[0][0]"}, tensor<3x5xui32> {jax.result_info = "result[0][1]"}, tensor<2xui64> {jax.result_info = "result[1][0]"}, tensor<2x3xui64> {jax.result_info = "result[1][1]"}, tensor<2xui64> {jax.result_info = "result[2][0]"}, tensor<ui32> {jax.result_info = "result[2][1]"}, tensor<2xui64> {jax.result_info = "result[3][0]"}, tensor<7xui16> {jax.result_info = "result[3][1]"}, tensor<2xui64> {jax.result_info = "result[4][0]"}, tensor<4x2xui8> {jax.result_info = "result[4][1]"}) {
    %output_state, %output = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x5xui32>)
    %output_state_0, %output_1 = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3xui64>)
    %output_state_2, %output_3 = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<ui32>)
    %output_state_4, %output_5 = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xui16>)
    %output_state_6, %output_7 = stablehlo.rng_bit_generator %arg0, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x2xui8>)
    return %output_state, %output, %output_state_0, %output_1, %output_state_2, %output_3, %output_state_4, %output_5, %output_state_6, %output_7 : tensor<2xui64>, tensor<3x5xui32>, tensor<2xui64>, tensor<2x3xui64>, tensor<2xui64>, tensor<ui32>, tensor<2xui64>, tensor<7xui16>, tensor<2xui64>, tensor<4x2xui8>
  }
}
