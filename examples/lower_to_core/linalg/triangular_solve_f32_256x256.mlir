// stablehlo.triangular_solve left, upper, adjoint, f32, n = 256 with 256 right-hand sides.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %scale = stablehlo.constant dense<3.90625000e-03> : tensor<256x256xf32>
  %xs = stablehlo.multiply %x, %scale : tensor<256x256xf32>
  %rows = stablehlo.iota dim = 0 : tensor<256x256xi32>
  %cols = stablehlo.iota dim = 1 : tensor<256x256xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<256x256xi32>, tensor<256x256xi32>) -> tensor<256x256xi1>
  %two = stablehlo.constant dense<2.0> : tensor<256x256xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<256x256xf32>
  %diag = stablehlo.select %eq, %two, %zero : tensor<256x256xi1>, tensor<256x256xf32>
  %a = stablehlo.add %xs, %diag : tensor<256x256xf32>
  %r = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}
