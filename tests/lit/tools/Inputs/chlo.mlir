// Used by translate_portable_artifact.mlir: CHLO cannot be serialized.
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erfc %a : tensor<4xf32> -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
