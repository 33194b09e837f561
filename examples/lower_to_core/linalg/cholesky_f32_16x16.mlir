// stablehlo.cholesky (lower) of x x^T / n + I, f32, n = 16.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %xh = stablehlo.transpose %x, dims = [1, 0] : (tensor<16x16xf32>) -> tensor<16x16xf32>
  %g = stablehlo.dot_general %x, %xh, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %scale = stablehlo.constant dense<6.25000000e-02> : tensor<16x16xf32>
  %gs = stablehlo.multiply %g, %scale : tensor<16x16xf32>
  %rows = stablehlo.iota dim = 0 : tensor<16x16xi32>
  %cols = stablehlo.iota dim = 1 : tensor<16x16xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<16x16xi32>, tensor<16x16xi32>) -> tensor<16x16xi1>
  %one = stablehlo.constant dense<1.0> : tensor<16x16xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<16x16xf32>
  %eye = stablehlo.select %eq, %one, %zero : tensor<16x16xi1>, tensor<16x16xf32>
  %a = stablehlo.add %gs, %eye : tensor<16x16xf32>
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<16x16xf32>) -> tensor<16x16xf32>
  return %l : tensor<16x16xf32>
}
