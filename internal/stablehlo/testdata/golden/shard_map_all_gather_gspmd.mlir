module @jit__lambda attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x3xf32>) -> (tensor<16x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<16x3xf32>) -> tensor<16x3xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x3xf32>) -> tensor<2x3xf32>
    %2 = call @shmap_body(%1) : (tensor<2x3xf32>) -> tensor<16x3xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<16x3xf32>) -> tensor<16x3xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<16x3xf32>) -> tensor<16x3xf32>
    return %4 : tensor<16x3xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x3xf32>) -> (tensor<16x3xf32> {jax.result_info = "[None, None]"}) {
    %0 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<2x3xf32>) -> tensor<16x3xf32>
    return %0 : tensor<16x3xf32>
  }
}
