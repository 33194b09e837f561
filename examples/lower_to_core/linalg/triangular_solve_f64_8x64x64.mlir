// stablehlo.triangular_solve right, upper, transpose, unit diagonal, f64, batch 8, n = 64.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<8x64x64xf64>, %b: tensor<8x4x64xf64>) -> tensor<8x4x64xf64> {
  %scale = stablehlo.constant dense<1.56250000e-02> : tensor<8x64x64xf64>
  %xs = stablehlo.multiply %x, %scale : tensor<8x64x64xf64>
  %rows = stablehlo.iota dim = 1 : tensor<8x64x64xi32>
  %cols = stablehlo.iota dim = 2 : tensor<8x64x64xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<8x64x64xi32>, tensor<8x64x64xi32>) -> tensor<8x64x64xi1>
  %two = stablehlo.constant dense<2.0> : tensor<8x64x64xf64>
  %zero = stablehlo.constant dense<0.0> : tensor<8x64x64xf64>
  %diag = stablehlo.select %eq, %two, %zero : tensor<8x64x64xi1>, tensor<8x64x64xf64>
  %a = stablehlo.add %xs, %diag : tensor<8x64x64xf64>
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<8x64x64xf64>, tensor<8x4x64xf64>) -> tensor<8x4x64xf64>
  return %r : tensor<8x4x64xf64>
}
