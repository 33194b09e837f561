// A small quantized MLP (StableHLO spec, "Quantized element types"): the f32 input is quantized to i8,
// the weights are i8 quantized constants (layer 2 per-axis), dot_general accumulates in i32-storage
// types, the bias is added in the accumulator type, relu is a maximum with a quantized zero, the
// hidden layer is requantized to i8 and the logits are dequantized to f32.
// hlokit-run examples/quantized_mlp.mlir --engine both   (XLA runs it through stablehlo-legalize-quant-to-math)
func.func @main(%x: tensor<4x16xf32>) -> (tensor<4x3xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.1:-10>>) {
  %qx = stablehlo.uniform_quantize %x : (tensor<4x16xf32>) -> tensor<4x16x!quant.uniform<i8:f32, 0.05:-2>>
  %w1 = stablehlo.constant() {value = dense<[[113, 32, 47, 101, 20, 70, 85, -70], [-113, -51, -55, 95, 105, -126, 0, 82], [-94, 76, -97, -8, 81, -50, -40, -57], [56, -63, 125, -14, -6, 1, 21, 14], [2, 126, 78, 75, 51, 31, -41, 125], [-9, -73, 88, -87, 91, 29, -98, -116], [-14, -118, -91, 4, 120, -9, 79, 106], [82, 33, -15, 4, -60, -1, -31, -64], [126, -124, -103, -78, 120, 49, 97, -76], [56, -33, -3, -127, 30, 84, 42, -88], [9, -59, 119, 97, -80, 2, 112, 89], [53, 36, -117, 62, -7, -104, -65, 10], [58, 2, 29, 95, 47, -35, 37, 25], [-100, -112, 41, -29, 25, -45, -70, -89], [-30, 81, -25, -31, 19, 122, -27, 23], [-15, 27, -14, 35, 12, 45, 116, -89]]> : tensor<16x8xi8>} : () -> tensor<16x8x!quant.uniform<i8:f32, 0.02>>
  %b1 = stablehlo.constant() {value = dense<[246, -239, -569, -1042, -1791, -391, 1304, -1614]> : tensor<8xi32>} : () -> tensor<8x!quant.uniform<i32:f32, 0.001>>
  %acc1 = stablehlo.dot_general %qx, %w1, contracting_dims = [1] x [0] : (tensor<4x16x!quant.uniform<i8:f32, 0.05:-2>>, tensor<16x8x!quant.uniform<i8:f32, 0.02>>) -> tensor<4x8x!quant.uniform<i32:f32, 0.001>>
  %bb1 = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<8x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x8x!quant.uniform<i32:f32, 0.001>>
  %sum1 = stablehlo.add %acc1, %bb1 : tensor<4x8x!quant.uniform<i32:f32, 0.001>>
  %zero = stablehlo.constant() {value = dense<0> : tensor<4x8xi32>} : () -> tensor<4x8x!quant.uniform<i32:f32, 0.001>>
  %relu = stablehlo.maximum %sum1, %zero : tensor<4x8x!quant.uniform<i32:f32, 0.001>>
  %h = stablehlo.uniform_quantize %relu : (tensor<4x8x!quant.uniform<i32:f32, 0.001>>) -> tensor<4x8x!quant.uniform<i8:f32, 0.1:-10>>
  %w2 = stablehlo.constant() {value = dense<[[-24, 119, 115], [-73, -126, 44], [-124, -51, -1], [95, -104, 41], [8, -94, 88], [88, -4, 113], [27, 103, 117], [18, -56, -90]]> : tensor<8x3xi8>} : () -> tensor<8x3x!quant.uniform<i8:f32:1, {0.03,0.02,0.05}>>
  %acc2 = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<4x8x!quant.uniform<i8:f32, 0.1:-10>>, tensor<8x3x!quant.uniform<i8:f32:1, {0.03,0.02,0.05}>>) -> tensor<4x3x!quant.uniform<i32:f32:1, {0.0012,0.0008,0.002}>>
  %b2 = stablehlo.constant() {value = dense<[377, -1846, 1501]> : tensor<3xi32>} : () -> tensor<3x!quant.uniform<i32:f32:0, {0.0012,0.0008,0.002}>>
  %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<3x!quant.uniform<i32:f32:0, {0.0012,0.0008,0.002}>>) -> tensor<4x3x!quant.uniform<i32:f32:1, {0.0012,0.0008,0.002}>>
  %sum2 = stablehlo.add %acc2, %bb2 : tensor<4x3x!quant.uniform<i32:f32:1, {0.0012,0.0008,0.002}>>
  %out = stablehlo.uniform_quantize %sum2 : (tensor<4x3x!quant.uniform<i32:f32:1, {0.0012,0.0008,0.002}>>) -> tensor<4x3x!quant.uniform<i8:f32, 0.25:3>>
  %y = stablehlo.uniform_dequantize %out : (tensor<4x3x!quant.uniform<i8:f32, 0.25:3>>) -> tensor<4x3xf32>
  return %y, %h : tensor<4x3xf32>, tensor<4x8x!quant.uniform<i8:f32, 0.1:-10>>
}
