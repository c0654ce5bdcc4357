module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x6xi4>, %arg1: tensor<8x6xui4>, %arg2: tensor<4x8xi8>, %arg3: tensor<6xf32>) -> (tensor<8x6xi4> {jax.result_info = "result[0]"}, tensor<8x6xi4> {jax.result_info = "result[1]"}, tensor<8x6xi4> {jax.result_info = "result[2]"}, tensor<8x6xi4> {jax.result_info = "result[3]"}, tensor<8x6xui4> {jax.result_info = "result[4]"}, tensor<8x6xui4> {jax.result_info = "result[5]"}, tensor<8x6xui4> {jax.result_info = "result[6]"}, tensor<8x6xi4> {jax.result_info = "result[7]"}, tensor<8x6xi4> {jax.result_info = "result[8]"}, tensor<8x6xi4> {jax.result_info = "result[9]"}, tensor<8x6xi4> {jax.result_info = "result[10]"}, tensor<8x6xui4> {jax.result_info = "result[11]"}, tensor<8x6xi4> {jax.result_info = "result[12]"}, tensor<8x6xi4> {jax.result_info = "result[13]"}, tensor<6xi4> {jax.result_info = "result[14]"}, tensor<8x6xui4> {jax.result_info = "result[15]"}, tensor<8x6xi1> {jax.result_info = "result[16]"}, tensor<8x6xf32> {jax.result_info = "result[17]"}, tensor<8x6xbf16> {jax.result_info = "result[18]"}, tensor<4x6xi32> {jax.result_info = "result[19]"}, tensor<4x6xf32> {jax.result_info = "result[20]"}, tensor<8x6xi4> {jax.result_info = "result[21]"}, tensor<8x6xi4> {jax.result_info = "result[22]"}, tensor<8x6xi4> {jax.result_info = "result[23]"}) {
    %0 = stablehlo.add %arg0, %arg0 : tensor<8x6xi4>
    %1 = stablehlo.multiply %arg0, %arg0 : tensor<8x6xi4>
    %2 = stablehlo.reverse %arg0, dims = [0] : tensor<8x6xi4>
    %3 = stablehlo.subtract %arg0, %2 : tensor<8x6xi4>
    %4 = stablehlo.negate %arg0 : tensor<8x6xi4>
    %5 = stablehlo.add %arg1, %arg1 : tensor<8x6xui4>
    %6 = stablehlo.multiply %arg1, %arg1 : tensor<8x6xui4>
    %7 = stablehlo.reverse %arg1, dims = [0] : tensor<8x6xui4>
    %8 = stablehlo.subtract %arg1, %7 : tensor<8x6xui4>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %9 = call @floor_divide(%arg0, %c) : (tensor<8x6xi4>, tensor<i32>) -> tensor<8x6xi4>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %10 = call @remainder(%arg0, %c_0) : (tensor<8x6xi4>, tensor<i32>) -> tensor<8x6xi4>
    %11 = stablehlo.reverse %arg0, dims = [0] : tensor<8x6xi4>
    %12 = stablehlo.negate %11 : tensor<8x6xi4>
    %13 = stablehlo.remainder %arg0, %12 : tensor<8x6xi4>
    %c_1 = stablehlo.constant dense<1> : tensor<i4>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %15 = stablehlo.shift_right_arithmetic %arg0, %14 : tensor<8x6xi4>
    %c_2 = stablehlo.constant dense<1> : tensor<ui4>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui4>) -> tensor<8x6xui4>
    %17 = stablehlo.shift_right_arithmetic %arg1, %16 : tensor<8x6xui4>
    %c_3 = stablehlo.constant dense<1> : tensor<i4>
    %18 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %19 = stablehlo.shift_left %arg0, %18 : tensor<8x6xi4>
    %20 = stablehlo.reverse %arg0, dims = [0] : tensor<8x6xi4>
    %21 = stablehlo.xor %arg0, %20 : tensor<8x6xi4>
    %c_4 = stablehlo.constant dense<-8> : tensor<i4>
    %22 = stablehlo.reduce(%arg0 init: %c_4) applies stablehlo.maximum across dimensions = [0] : (tensor<8x6xi4>, tensor<i4>) -> tensor<6xi4>
    %23 = stablehlo.reverse %arg1, dims = [0] : tensor<8x6xui4>
    %24 = stablehlo.maximum %arg1, %23 : tensor<8x6xui4>
    %c_5 = stablehlo.constant dense<0> : tensor<i4>
    %25 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %26 = stablehlo.compare GT, %arg0, %25, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %27 = stablehlo.convert %arg0 : (tensor<8x6xi4>) -> tensor<8x6xf32>
    %28 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<8x6xf32>
    %30 = stablehlo.multiply %27, %29 : tensor<8x6xf32>
    %31 = stablehlo.convert %arg0 : (tensor<8x6xi4>) -> tensor<8x6xbf16>
    %32 = stablehlo.convert %arg3 : (tensor<6xf32>) -> tensor<6xbf16>
    %33 = stablehlo.broadcast_in_dim %32, dims = [1] : (tensor<6xbf16>) -> tensor<1x6xbf16>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<1x6xbf16>) -> tensor<8x6xbf16>
    %35 = stablehlo.multiply %31, %34 : tensor<8x6xbf16>
    %36 = stablehlo.convert %arg2 : (tensor<4x8xi8>) -> tensor<4x8xi32>
    %37 = stablehlo.convert %arg0 : (tensor<8x6xi4>) -> tensor<8x6xi32>
    %38 = stablehlo.dot_general %36, %37, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xi32>, tensor<8x6xi32>) -> tensor<4x6xi32>
    %39 = stablehlo.convert %arg2 : (tensor<4x8xi8>) -> tensor<4x8xf32>
    %40 = stablehlo.convert %arg0 : (tensor<8x6xi4>) -> tensor<8x6xf32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<8x6xf32>
    %43 = stablehlo.multiply %40, %42 : tensor<8x6xf32>
    %44 = stablehlo.dot_general %39, %43, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i4>
    %45 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %46 = stablehlo.compare GT, %arg0, %45, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %47 = stablehlo.convert %arg1 : (tensor<8x6xui4>) -> tensor<8x6xi4>
    %48 = call @_where(%46, %arg0, %47) : (tensor<8x6xi1>, tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi4>
    %c_7 = stablehlo.constant dense<-2> : tensor<i32>
    %c_8 = stablehlo.constant dense<3> : tensor<i32>
    %49 = call @clip(%arg0, %c_7, %c_8) : (tensor<8x6xi4>, tensor<i32>, tensor<i32>) -> tensor<8x6xi4>
    %50 = call @sort(%arg0) : (tensor<8x6xi4>) -> tensor<8x6xi4>
    return %0, %1, %3, %4, %5, %6, %8, %9, %10, %13, %15, %17, %19, %21, %22, %24, %26, %30, %35, %38, %44, %48, %49, %50 : tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xui4>, tensor<8x6xui4>, tensor<8x6xui4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xui4>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<6xi4>, tensor<8x6xui4>, tensor<8x6xi1>, tensor<8x6xf32>, tensor<8x6xbf16>, tensor<4x6xi32>, tensor<4x6xf32>, tensor<8x6xi4>, tensor<8x6xi4>, tensor<8x6xi4>
  }
  func.func private @floor_divide(%arg0: tensor<8x6xi4>, %arg1: tensor<i32>) -> tensor<8x6xi4> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<i4>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %2 = stablehlo.divide %arg0, %1 : tensor<8x6xi4>
    %3 = stablehlo.sign %arg0 : tensor<8x6xi4>
    %4 = stablehlo.sign %0 : tensor<i4>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %8 = stablehlo.remainder %arg0, %7 : tensor<8x6xi4>
    %c = stablehlo.constant dense<0> : tensor<i4>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %11 = stablehlo.and %6, %10 : tensor<8x6xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i4>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %13 = stablehlo.subtract %2, %12 : tensor<8x6xi4>
    %14 = call @_where(%11, %13, %2) : (tensor<8x6xi1>, tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi4>
    return %14 : tensor<8x6xi4>
  }
  func.func private @_where(%arg0: tensor<8x6xi1>, %arg1: tensor<8x6xi4>, %arg2: tensor<8x6xi4>) -> tensor<8x6xi4> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8x6xi1>, tensor<8x6xi4>
    return %0 : tensor<8x6xi4>
  }
  func.func private @remainder(%arg0: tensor<8x6xi4>, %arg1: tensor<i32>) -> tensor<8x6xi4> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<i4>
    %c = stablehlo.constant dense<0> : tensor<i4>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i4>, tensor<i4>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i4>
    %2 = call @_where_0(%1, %c_0, %0) : (tensor<i1>, tensor<i4>, tensor<i4>) -> tensor<i4>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8x6xi4>
    %c_1 = stablehlo.constant dense<0> : tensor<i4>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i4>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<8x6xi4>, tensor<8x6xi4>) -> tensor<8x6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i4>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i4>, tensor<i4>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<8x6xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8x6xi1>, tensor<8x6xi1>) -> tensor<8x6xi1>
    %12 = stablehlo.and %11, %6 : tensor<8x6xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %14 = stablehlo.add %4, %13 : tensor<8x6xi4>
    %15 = stablehlo.select %12, %14, %4 : tensor<8x6xi1>, tensor<8x6xi4>
    return %15 : tensor<8x6xi4>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i4>, %arg2: tensor<i4>) -> tensor<i4> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i4>
    return %0 : tensor<i4>
  }
  func.func private @clip(%arg0: tensor<8x6xi4>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<8x6xi4> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<i4>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8x6xi4>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<i4>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i4>) -> tensor<8x6xi4>
    %5 = stablehlo.minimum %4, %2 : tensor<8x6xi4>
    return %5 : tensor<8x6xi4>
  }
  func.func private @sort(%arg0: tensor<8x6xi4>) -> tensor<8x6xi4> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i4>, %arg2: tensor<i4>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i4>, tensor<i4>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<8x6xi4>) -> tensor<8x6xi4>
    return %0 : tensor<8x6xi4>
  }
}
