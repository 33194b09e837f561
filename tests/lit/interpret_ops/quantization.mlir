// RUN: hlokit-translate --interpret -split-input-file %s | FileCheck %s
// Quantized tensors through the tool: a result of quantized type prints its declared type over its
// storage values (StableHLO spec, "Quantized element types").

// A quantized constant (its value attribute holds the storage values) and uniform_quantize.
// CHECK: tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-20>> {
// CHECK-NEXT:   [-19, -20, -17]
// CHECK-NEXT: }
// CHECK: tensor<3x!quant.uniform<i8:f32, 5.000000e-01:-20>> {
// CHECK-NEXT:   [-18, -24, 2]
// CHECK-NEXT: }
func.func @main() -> (tensor<3x!quant.uniform<i8:f32, 0.5:-20>>, tensor<3x!quant.uniform<i8:f32, 0.5:-20>>) {
  %c = stablehlo.constant() {value = dense<[-19, -20, -17]> : tensor<3xi8>} : () -> tensor<3x!quant.uniform<i8:f32, 0.5:-20>>
  %x = stablehlo.constant dense<[1.0, -2.0, 11.0]> : tensor<3xf32>
  %q = stablehlo.uniform_quantize %x : (tensor<3xf32>) -> tensor<3x!quant.uniform<i8:f32, 0.5:-20>>
  func.return %c, %q : tensor<3x!quant.uniform<i8:f32, 0.5:-20>>, tensor<3x!quant.uniform<i8:f32, 0.5:-20>>
}

// -----

// Per-axis: a transpose moves the quantized dimension and keeps the storage values; dequantizing
// uses the scale of each column (then row).
// CHECK: tensor<2x2xf32> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [1.000000e+00, 2.000000e+00],
// CHECK-NEXT:     [4.000000e+00, 1.000000e+01]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
func.func @main() -> tensor<2x2xf32> {
  %a = stablehlo.constant() {value = dense<[[10, 10], [20, 40]]> : tensor<2x2xi8>} : () -> tensor<2x2x!quant.uniform<i8:f32:1, {0.1:0,0.2:-10}>>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x2x!quant.uniform<i8:f32:1, {0.1:0,0.2:-10}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.1:0,0.2:-10}>>
  %d = stablehlo.uniform_dequantize %t : (tensor<2x2x!quant.uniform<i8:f32:0, {0.1:0,0.2:-10}>>) -> tensor<2x2xf32>
  func.return %d : tensor<2x2xf32>
}

// -----

// Elementwise ops run as dequantize -> op -> quantize: 1.5 * 2.5 = 3.75, / 0.5 = 7.5 rounds half to
// even to 8 (4.0); requantized: 4.0 / 0.25 + 10 = 26.
// CHECK: tensor<!quant.uniform<u8:f32, 2.500000e-01:10>> {26}
func.func @main() -> tensor<!quant.uniform<u8:f32, 0.25:10>> {
  %a = stablehlo.constant() {value = dense<3> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5>>
  %b = stablehlo.constant() {value = dense<5> : tensor<i8>} : () -> tensor<!quant.uniform<i8:f32, 0.5>>
  %m = stablehlo.multiply %a, %b : (tensor<!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  %r = stablehlo.uniform_quantize %m : (tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<u8:f32, 0.25:10>>
  func.return %r : tensor<!quant.uniform<u8:f32, 0.25:10>>
}
