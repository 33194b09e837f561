// Solve A z = b through the Cholesky factor (cholesky, then two triangular_solve: L and L^H), complex<f32>, batch 2, n = 64.
// Lowered to core StableHLO by hlokit-opt --stablehlo-expand-cholesky --stablehlo-expand-triangular-solve
// (both ops are native on XLA). Any input works: the program builds its own well-conditioned operands.
func.func @main(%x: tensor<2x64x64xcomplex<f32>>, %b: tensor<2x64x8xcomplex<f32>>) -> tensor<2x64x8xcomplex<f32>> {
  %re = stablehlo.real %x : (tensor<2x64x64xcomplex<f32>>) -> tensor<2x64x64xf32>
  %im = stablehlo.imag %x : (tensor<2x64x64xcomplex<f32>>) -> tensor<2x64x64xf32>
  %nim = stablehlo.negate %im : tensor<2x64x64xf32>
  %cx = stablehlo.complex %re, %nim : tensor<2x64x64xcomplex<f32>>
  %xh = stablehlo.transpose %cx, dims = [0, 2, 1] : (tensor<2x64x64xcomplex<f32>>) -> tensor<2x64x64xcomplex<f32>>
  %g = stablehlo.dot_general %x, %xh, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x64x64xcomplex<f32>>, tensor<2x64x64xcomplex<f32>>) -> tensor<2x64x64xcomplex<f32>>
  %scale = stablehlo.constant dense<(1.56250000e-02, 0.0)> : tensor<2x64x64xcomplex<f32>>
  %gs = stablehlo.multiply %g, %scale : tensor<2x64x64xcomplex<f32>>
  %rows = stablehlo.iota dim = 1 : tensor<2x64x64xi32>
  %cols = stablehlo.iota dim = 2 : tensor<2x64x64xi32>
  %eq = stablehlo.compare EQ, %rows, %cols, SIGNED : (tensor<2x64x64xi32>, tensor<2x64x64xi32>) -> tensor<2x64x64xi1>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<2x64x64xcomplex<f32>>
  %zero = stablehlo.constant dense<(0.0, 0.0)> : tensor<2x64x64xcomplex<f32>>
  %eye = stablehlo.select %eq, %one, %zero : tensor<2x64x64xi1>, tensor<2x64x64xcomplex<f32>>
  %a = stablehlo.add %gs, %eye : tensor<2x64x64xcomplex<f32>>
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x64x64xcomplex<f32>>) -> tensor<2x64x64xcomplex<f32>>
  %y = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x64x64xcomplex<f32>>, tensor<2x64x8xcomplex<f32>>) -> tensor<2x64x8xcomplex<f32>>
  %z = "stablehlo.triangular_solve"(%l, %y) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<2x64x64xcomplex<f32>>, tensor<2x64x8xcomplex<f32>>) -> tensor<2x64x8xcomplex<f32>>
  return %z : tensor<2x64x8xcomplex<f32>>
}
