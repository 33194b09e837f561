// stablehlo.triangular_solve left, lower, no transpose, f32, n = 16.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %scale = stablehlo.constant dense<6.25000000e-02> : tensor<16x16xf32>
  %xs = stablehlo.multiply %x, %scale : tensor<16x16xf32>
  %rows = stablehlo.iota dim = 0 : tensor<16x16xi32>
  %cols = stablehlo.iota dim = 1 : tensor<16x16xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
  %two = stablehlo.constant dense<2.0> : tensor<16x16xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<16x16xf32>
  %diag = stablehlo.select %eq, %two, %zero : tensor<16x16xi1>, tensor<16x16xf32>
  %a = stablehlo.add %xs, %diag : tensor<16x16xf32>
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
