module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi32>, %arg1: tensor<3x5xi1>) -> (tensor<3xi32> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}, tensor<5xi1> {jax.result_info = "result[2]"}, tensor<3xi1> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<3x5xi32>, tensor<i32>) -> tensor<3xi32>
    %c_0 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %1 = stablehlo.reduce(%arg0 init: %c_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<3x5xi32>, tensor<i32>) -> tensor<i32>
    %c_1 = stablehlo.constant dense<false> : tensor<i1>
    %2 = stablehlo.reduce(%arg1 init: %c_1) applies stablehlo.or across dimensions = [0] : (tensor<3x5xi1>, tensor<i1>) -> tensor<5xi1>
    %c_2 = stablehlo.constant dense<true> : tensor<i1>
    %3 = stablehlo.reduce(%arg1 init: %c_2) applies stablehlo.and across dimensions = [1] : (tensor<3x5xi1>, tensor<i1>) -> tensor<3xi1>
    return %0, %1, %2, %3 : tensor<3xi32>, tensor<i32>, tensor<5xi1>, tensor<3xi1>
  }
}
