module @jit_while_20 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32>) -> (tensor<64xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0, %iterArg_1 = %cst) : tensor<i32>, tensor<64xf32>, tensor<f32>
    cond {
      %c_2 = stablehlo.constant dense<20> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %cst_2 = stablehlo.constant dense<9.900000e-01> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %2 = stablehlo.multiply %iterArg_0, %1 : tensor<64xf32>
      %3 = stablehlo.sine %iterArg_0 : tensor<64xf32>
      %cst_3 = stablehlo.constant dense<0.00999999977> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %5 = stablehlo.multiply %3, %4 : tensor<64xf32>
      %6 = stablehlo.add %2, %5 : tensor<64xf32>
      %7 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %cst_4 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
      %8 = stablehlo.multiply %cst_4, %7 : tensor<f32>
      %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %10 = stablehlo.add %6, %9 : tensor<64xf32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %11 = stablehlo.add %iterArg, %c_5 : tensor<i32>
      %12 = stablehlo.multiply %10, %10 : tensor<64xf32>
      %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %13 = stablehlo.reduce(%12 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
      %14 = stablehlo.add %iterArg_1, %13 : tensor<f32>
      stablehlo.return %11, %10, %14 : tensor<i32>, tensor<64xf32>, tensor<f32>
    }
    return %0#1, %0#2 : tensor<64xf32>, tensor<f32>
  }
}
