module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4x3xf64>) -> (tensor<2x4x3xf64> {jax.result_info = "result[0].Q"}, tensor<2x3x3xf64> {jax.result_info = "result[0].R"}, tensor<2x4xf64> {jax.result_info = "result[1][0]"}, tensor<2x4x4xf64> {jax.result_info = "result[1][1]"}, tensor<2x4x4xf64> {jax.result_info = "result[1][2]"}, tensor<2x3xf64> {jax.result_info = "result[2][0]"}, tensor<2x4x3xf64> {jax.result_info = "result[2][1]"}, tensor<2x3x3xf64> {jax.result_info = "result[2][2]"}, tensor<2x4x3xf64> {jax.result_info = "result[2][3]"}, tensor<2x3xf64> {jax.result_info = "result[2][4]"}, tensor<2x4x4xf64> {jax.result_info = "result[2][5]"}, tensor<2x3x3xf64> {jax.result_info = "result[2][6]"}) {
    %0:2 = call @qr(%arg0) : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3x3xf64>)
    %1 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x3xf64>) -> tensor<2x3x4xf64>
    %2 = stablehlo.dot_general %arg0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4x3xf64>, tensor<2x3x4xf64>) -> tensor<2x4x4xf64>
    %3:2 = call @eigh(%2) : (tensor<2x4x4xf64>) -> (tensor<2x4xf64>, tensor<2x4x4xf64>)
    %4 = stablehlo.abs %3#1 : tensor<2x4x4xf64>
    %5 = stablehlo.broadcast_in_dim %3#0, dims = [0, 2] : (tensor<2x4xf64>) -> tensor<2x1x4xf64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1, 2] : (tensor<2x1x4xf64>) -> tensor<2x4x4xf64>
    %7 = stablehlo.multiply %3#1, %6 : tensor<2x4x4xf64>
    %8 = stablehlo.transpose %3#1, dims = [0, 2, 1] : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %9 = stablehlo.dot_general %7, %8, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %10:3 = call @svd(%arg0) : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>)
    %11:2 = call @svd_0(%arg0) : (tensor<2x4x3xf64>) -> (tensor<2x4x4xf64>, tensor<2x3x3xf64>)
    %12 = stablehlo.abs %10#0 : tensor<2x4x3xf64>
    %13 = stablehlo.abs %10#2 : tensor<2x3x3xf64>
    %14 = stablehlo.broadcast_in_dim %10#1, dims = [0, 2] : (tensor<2x3xf64>) -> tensor<2x1x3xf64>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x1x3xf64>) -> tensor<2x4x3xf64>
    %16 = stablehlo.multiply %10#0, %15 : tensor<2x4x3xf64>
    %17 = stablehlo.dot_general %16, %10#2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4x3xf64>, tensor<2x3x3xf64>) -> tensor<2x4x3xf64>
    %18 = call @svd_1(%arg0) : (tensor<2x4x3xf64>) -> tensor<2x3xf64>
    %19 = stablehlo.transpose %11#0, dims = [0, 2, 1] : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %20 = stablehlo.dot_general %11#0, %19, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4x4xf64>, tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %21 = stablehlo.transpose %11#1, dims = [0, 2, 1] : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
    %22 = stablehlo.dot_general %21, %11#1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xf64>, tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
    return %0#0, %0#1, %3#0, %4, %9, %10#1, %12, %13, %17, %18, %20, %22 : tensor<2x4x3xf64>, tensor<2x3x3xf64>, tensor<2x4xf64>, tensor<2x4x4xf64>, tensor<2x4x4xf64>, tensor<2x3xf64>, tensor<2x4x3xf64>, tensor<2x3x3xf64>, tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x4x4xf64>, tensor<2x3x3xf64>
  }
  func.func private @qr(%arg0: tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3x3xf64>) {
    %0:2 = stablehlo.custom_call @lapack_dgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n]) {i=2, j=4, k=3, l=4, m=3, n=3}, custom>} : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>)
    %1 = stablehlo.custom_call @lapack_dorgqr_ffi(%0#0, %0#1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k], [i, l])->([i, m, n]) {i=2, j=4, k=3, l=3, m=4, n=3}, custom>} : (tensor<2x4x3xf64>, tensor<2x3xf64>) -> tensor<2x4x3xf64>
    %2 = stablehlo.slice %0#0 [0:2, 0:3, 0:3] : (tensor<2x4x3xf64>) -> tensor<2x3x3xf64>
    %3 = stablehlo.iota dim = 0 : tensor<3x3xi64>
    %c = stablehlo.constant dense<-1> : tensor<i64>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x3xi64>
    %5 = stablehlo.add %3, %4 : tensor<3x3xi64>
    %6 = stablehlo.iota dim = 1 : tensor<3x3xi64>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x3xi64>, tensor<3x3xi64>) -> tensor<3x3xi1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1, 2] : (tensor<3x3xi1>) -> tensor<2x3x3xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3x3xf64>
    %10 = stablehlo.select %8, %9, %2 : tensor<2x3x3xi1>, tensor<2x3x3xf64>
    return %1, %10 : tensor<2x4x3xf64>, tensor<2x3x3xf64>
  }
  func.func private @eigh(%arg0: tensor<2x4x4xf64>) -> (tensor<2x4xf64>, tensor<2x4x4xf64>) {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<2x4x4xf64>) -> tensor<2x4x4xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<2x4x4xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x4x4xf64>
    %3 = stablehlo.divide %1, %2 : tensor<2x4x4xf64>
    %4:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%3) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=2, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<2x4x4xf64>) -> (tensor<2x4x4xf64>, tensor<2x4xf64>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %6 = stablehlo.compare EQ, %4#2, %5, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x4x4xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<2x4x4xi1>, tensor<2x4x4xf64>
    %11 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<2x4xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x4xi1>
    %14 = stablehlo.select %13, %4#1, %12 : tensor<2x4xi1>, tensor<2x4xf64>
    return %14, %10 : tensor<2x4xf64>, tensor<2x4x4xf64>
  }
  func.func private @svd(%arg0: tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=4, k=3, l=4, m=3, n=3, o=4, p=3, q=3, r=3}, custom>} : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x4x3xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x3xi1>, tensor<2x3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x4x3xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x4x3xi1>, tensor<2x4x3xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<2x3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x3x3xi1>, tensor<2x3x3xf64>
    return %10, %6, %14 : tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x3x3xf64>
  }
  func.func private @svd_0(%arg0: tensor<2x4x3xf64>) -> (tensor<2x4x4xf64>, tensor<2x3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=4, k=3, l=4, m=3, n=3, o=4, p=4, q=3, r=3}, custom>} : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x4x4xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x3xi1>, tensor<2x3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<2x4x4xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<2x4x4xi1>, tensor<2x4x4xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<2x3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<2x3x3xi1>, tensor<2x3x3xf64>
    return %10, %14 : tensor<2x4x4xf64>, tensor<2x3x3xf64>
  }
  func.func private @svd_1(%arg0: tensor<2x4x3xf64>) -> tensor<2x3xf64> {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=2, j=4, k=3, l=4, m=3, n=3, o=4, p=4, q=3, r=3}, custom>} : (tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<2x3xf64>, tensor<2x4x4xf64>, tensor<2x3x3xf64>, tensor<2xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xi1>) -> tensor<2x1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xi1>) -> tensor<2x3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<2x3xi1>, tensor<2x3xf64>
    return %6 : tensor<2x3xf64>
  }
}
