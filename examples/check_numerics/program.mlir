// A small network layer for examples/check_numerics: dot, CHLO, a softmax's exponential, foldable constants.
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xi32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %one2 = stablehlo.constant dense<1.0> : tensor<f32>
  %y = stablehlo.dot %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %z = stablehlo.add %y, %bb : tensor<4x16xf32>
  %g = chlo.broadcast_multiply %z, %z : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = stablehlo.multiply %one, %one2 : tensor<f32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
  %h = stablehlo.multiply %g, %sb : tensor<4x16xf32>
  %m = stablehlo.reduce(%h init: %zero) applies stablehlo.maximum across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x16xf32>
  %d = stablehlo.subtract %h, %mb : tensor<4x16xf32>
  %e = stablehlo.exponential %d : tensor<4x16xf32>
  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x16xf32>, tensor<f32>) -> tensor<4xf32>
  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<4xf32>) -> tensor<4x16xf32>
  %p = stablehlo.divide %e, %sumb : tensor<4x16xf32>
  %i = stablehlo.convert %m : (tensor<4xf32>) -> tensor<4xi32>
  return %p, %i : tensor<4x16xf32>, tensor<4xi32>
}
