// Multi-head attention written with stablehlo.einsum (batch 4, 8 heads, 256 queries and keys, head size 64),
// the scores scaled and normalized by a softmax, f32. XLA compiles the einsums directly;
// `hlokit-opt --stablehlo-legalize-deprecated-ops` turns them into dot_general (+ transpose).
func.func @main(%q: tensor<4x256x8x64xf32>, %k: tensor<4x256x8x64xf32>, %v: tensor<4x256x8x64xf32>) -> tensor<4x256x8x64xf32> {
  %s = stablehlo.einsum %q, %k, config = "bqhd,bkhd->bhqk" : (tensor<4x256x8x64xf32>, tensor<4x256x8x64xf32>) -> tensor<4x8x256x256xf32>
  %c = stablehlo.constant dense<1.250000e-01> : tensor<4x8x256x256xf32>
  %t = stablehlo.multiply %s, %c : tensor<4x8x256x256xf32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%t init: %ninf) applies stablehlo.maximum across dimensions = [3] : (tensor<4x8x256x256xf32>, tensor<f32>) -> tensor<4x8x256xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0, 1, 2] : (tensor<4x8x256xf32>) -> tensor<4x8x256x256xf32>
  %d = stablehlo.subtract %t, %mb : tensor<4x8x256x256xf32>
  %e = stablehlo.exponential %d : tensor<4x8x256x256xf32>
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3] : (tensor<4x8x256x256xf32>, tensor<f32>) -> tensor<4x8x256xf32>
  %zb = stablehlo.broadcast_in_dim %z, dims = [0, 1, 2] : (tensor<4x8x256xf32>) -> tensor<4x8x256x256xf32>
  %p = stablehlo.divide %e, %zb : tensor<4x8x256x256xf32>
  %o = stablehlo.einsum %p, %v, config = "bhqk,bkhd->bqhd" : (tensor<4x8x256x256xf32>, tensor<4x256x8x64xf32>) -> tensor<4x256x8x64xf32>
  func.return %o : tensor<4x256x8x64xf32>
}
