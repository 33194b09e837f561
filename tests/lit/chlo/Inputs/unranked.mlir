// An unranked operand: chlo-legalize-to-stablehlo must fail with a located error.
// (Used by errors.mlir.)

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = chlo.erf %x : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}
