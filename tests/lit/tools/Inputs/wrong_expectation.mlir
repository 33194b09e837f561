// Used by opt_verify_diagnostics.mlir: the expectation names the wrong line and text.

func.func @bad_shape(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error {{this text is not in the message}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %a : tensor<2xf32>
}
