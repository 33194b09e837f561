// Used by opt_errors.mlir.

func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<3xf32>
  func.return %0 : tensor<2xf32>
}
