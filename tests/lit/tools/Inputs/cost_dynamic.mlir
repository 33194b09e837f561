func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
