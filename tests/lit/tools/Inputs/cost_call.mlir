func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = func.call @helper(%x) : (tensor<16xf32>) -> tensor<16xf32>
  %1 = func.call @helper(%0) : (tensor<16xf32>) -> tensor<16xf32>
  return %1 : tensor<16xf32>
}
func.func private @helper(%x: tensor<16xf32>) -> tensor<16xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<16xf32>
  return %0 : tensor<16xf32>
}
