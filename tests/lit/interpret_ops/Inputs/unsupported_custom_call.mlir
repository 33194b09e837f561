// An unknown custom_call target is a located interpreter error (exit 1).
func.func @main() -> tensor<2xf32> {
  %x = stablehlo.constant dense<1.0> : tensor<2xf32>
  %y = stablehlo.custom_call @my.kernel(%x) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
