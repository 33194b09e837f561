// Exported by examples/export.py with jax 0.10.2: special_functions
module @jit_special_functions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x32xf32>, %arg1: tensor<4x32xf32>) -> (tensor<4x32xf32> {jax.result_info = "result[0]"}, tensor<4x32xf32> {jax.result_info = "result[1]"}, tensor<4x32xf32> {jax.result_info = "result[2]"}, tensor<4x32xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.abs %arg0 : tensor<4x32xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %2 = stablehlo.add %0, %1 : tensor<4x32xf32>
    %3 = chlo.lgamma %2 : tensor<4x32xf32> -> tensor<4x32xf32>
    %4 = chlo.digamma %2 : tensor<4x32xf32> -> tensor<4x32xf32>
    %5 = stablehlo.add %3, %4 : tensor<4x32xf32>
    %6 = stablehlo.tanh %arg0 : tensor<4x32xf32>
    %7 = chlo.erf_inv %6 : tensor<4x32xf32> -> tensor<4x32xf32>
    %8 = stablehlo.add %5, %7 : tensor<4x32xf32>
    %9 = chlo.bessel_i1e %arg0 : tensor<4x32xf32> -> tensor<4x32xf32>
    %10 = stablehlo.add %8, %9 : tensor<4x32xf32>
    %11 = chlo.erf %arg1 : tensor<4x32xf32> -> tensor<4x32xf32>
    %12 = stablehlo.add %10, %11 : tensor<4x32xf32>
    %13 = chlo.erfc %arg0 : tensor<4x32xf32> -> tensor<4x32xf32>
    %14 = stablehlo.add %12, %13 : tensor<4x32xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %16 = stablehlo.multiply %arg0, %15 : tensor<4x32xf32>
    %17 = stablehlo.tan %16 : tensor<4x32xf32>
    %18 = chlo.asinh %arg1 : tensor<4x32xf32> -> tensor<4x32xf32>
    %19 = stablehlo.add %17, %18 : tensor<4x32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %21 = stablehlo.add %2, %20 : tensor<4x32xf32>
    %22 = call @arccosh(%21) : (tensor<4x32xf32>) -> tensor<4x32xf32>
    %23 = stablehlo.add %19, %22 : tensor<4x32xf32>
    %24 = stablehlo.tanh %arg1 : tensor<4x32xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %26 = stablehlo.multiply %24, %25 : tensor<4x32xf32>
    %27 = chlo.atanh %26 : tensor<4x32xf32> -> tensor<4x32xf32>
    %28 = stablehlo.add %23, %27 : tensor<4x32xf32>
    %29 = chlo.sinh %arg0 : tensor<4x32xf32> -> tensor<4x32xf32>
    %30 = chlo.cosh %arg1 : tensor<4x32xf32> -> tensor<4x32xf32>
    %31 = stablehlo.multiply %29, %30 : tensor<4x32xf32>
    %32 = chlo.next_after %arg0, %arg1 : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
    %33 = stablehlo.add %31, %32 : tensor<4x32xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %35 = chlo.polygamma %34, %2 : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
    %36 = stablehlo.add %33, %35 : tensor<4x32xf32>
    %cst_4 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %38 = stablehlo.add %2, %37 : tensor<4x32xf32>
    %39 = chlo.zeta %38, %2 : tensor<4x32xf32>, tensor<4x32xf32> -> tensor<4x32xf32>
    %40 = stablehlo.add %36, %39 : tensor<4x32xf32>
    %41 = stablehlo.divide %arg0, %arg1 : tensor<4x32xf32>
    %42 = call @isinf(%41) : (tensor<4x32xf32>) -> tensor<4x32xi1>
    %43 = stablehlo.convert %42 : (tensor<4x32xi1>) -> tensor<4x32xf32>
    return %14, %28, %40, %43 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
  }
  func.func private @arccosh(%arg0: tensor<4x32xf32>) -> tensor<4x32xf32> {
    %0 = chlo.acosh %arg0 : tensor<4x32xf32> -> tensor<4x32xf32>
    return %0 : tensor<4x32xf32>
  }
  func.func private @isinf(%arg0: tensor<4x32xf32>) -> tensor<4x32xi1> {
    %0 = stablehlo.abs %arg0 : tensor<4x32xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %2 = stablehlo.compare EQ, %0, %1, FLOAT : (tensor<4x32xf32>, tensor<4x32xf32>) -> tensor<4x32xi1>
    return %2 : tensor<4x32xi1>
  }
}
