// stablehlo.cholesky (upper) of a batch of 4 matrices x x^T / n + I, f32, n = 64.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %xh = stablehlo.transpose %x, dims = [0, 2, 1] : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %g = stablehlo.dot_general %x, %xh, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<4x64x64xf32>, tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  %scale = stablehlo.constant dense<1.56250000e-02> : tensor<4x64x64xf32>
  %gs = stablehlo.multiply %g, %scale : tensor<4x64x64xf32>
  %rows = stablehlo.iota dim = 1 : tensor<4x64x64xi32>
  %cols = stablehlo.iota dim = 2 : tensor<4x64x64xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<4x64x64xi32>, tensor<4x64x64xi32>) -> tensor<4x64x64xi1>
  %one = stablehlo.constant dense<1.0> : tensor<4x64x64xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<4x64x64xf32>
  %eye = stablehlo.select %eq, %one, %zero : tensor<4x64x64xi1>, tensor<4x64x64xf32>
  %a = stablehlo.add %gs, %eye : tensor<4x64x64xf32>
  %l = "stablehlo.cholesky"(%a) {lower = false} : (tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %l : tensor<4x64x64xf32>
}
