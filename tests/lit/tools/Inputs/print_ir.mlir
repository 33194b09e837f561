// Input of the opt_print_ir_*.mlir / opt_dump_pass_pipeline.mlir / opt_pass_statistics.mlir tests (pass instrumentation).
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.broadcast_in_dim %c, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
  %3 = stablehlo.add %0, %1 : tensor<2x4xf32>
  %4 = stablehlo.add %3, %2 : tensor<2x4xf32>
  return %4 : tensor<2x4xf32>
}
func.func private @unused() {
  return
}
