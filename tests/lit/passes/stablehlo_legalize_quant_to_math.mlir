// RUN: hlokit-opt --stablehlo-legalize-quant-to-math --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-quant-to-math))' --split-input-file --verify-diagnostics %s | FileCheck %s

// Spec "quantize": x / scale + zero_point in the expressed type, clamped to the storage range, rounded
// half to even, NaN -> 0, converted to the storage type. The divisor is select(x != x, x, scale): XLA
// would multiply by the reciprocal of a constant.
// CHECK-LABEL: func.func @quantize
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>) -> tensor<4xi8>
// CHECK: %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[XNAN:.*]] = stablehlo.compare NE, %[[X]], %[[X]]
// CHECK: %[[DIV:.*]] = stablehlo.select %[[XNAN]], %[[X]], %[[S]] : tensor<4xi1>, tensor<4xf32>
// CHECK: %[[D:.*]] = stablehlo.divide %[[X]], %[[DIV]] : tensor<4xf32>
// CHECK: %[[Z:.*]] = stablehlo.constant dense<-3.000000e+00> : tensor<4xf32>
// CHECK: %[[A:.*]] = stablehlo.add %[[D]], %[[Z]] : tensor<4xf32>
// CHECK: %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<4xf32>
// CHECK: %[[MX:.*]] = stablehlo.maximum %[[A]], %[[LO]] : tensor<4xf32>
// CHECK: %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<4xf32>
// CHECK: %[[MN:.*]] = stablehlo.minimum %[[MX]], %[[HI]] : tensor<4xf32>
// CHECK: %[[R:.*]] = stablehlo.round_nearest_even %[[MN]] : tensor<4xf32>
// CHECK: %[[NAN:.*]] = stablehlo.compare NE, %[[R]], %[[R]]
// CHECK: %[[SEL:.*]] = stablehlo.select %[[NAN]], %{{.*}}, %[[R]]
// CHECK: %[[Q:.*]] = stablehlo.convert %[[SEL]] : (tensor<4xf32>) -> tensor<4xi8>
// CHECK: return %[[Q]] : tensor<4xi8>
// CHECK-NOT: quant
func.func @quantize(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  return %q : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// Spec "dequantize": (storage - zero_point) widened to i32, converted to the expressed type, times scale.
// CHECK-LABEL: func.func @dequantize
// CHECK-SAME: (%[[Q:.*]]: tensor<4xi8>) -> tensor<4xf32>
// CHECK: %[[W:.*]] = stablehlo.convert %[[Q]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[Z:.*]] = stablehlo.constant dense<-3> : tensor<4xi32>
// CHECK: %[[SUB:.*]] = stablehlo.subtract %[[W]], %[[Z]] : tensor<4xi32>
// CHECK: %[[F:.*]] = stablehlo.convert %[[SUB]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK: %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<4xf32>
// CHECK: %[[D:.*]] = stablehlo.multiply %[[F]], %[[S]] : tensor<4xf32>
// CHECK: return %[[D]] : tensor<4xf32>
func.func @dequantize(%q: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32> {
  %d = stablehlo.uniform_dequantize %q : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Per-axis parameters: a 1-d constant broadcast along the quantization dimension; u8 storage is ui8.
// CHECK-LABEL: func.func @per_axis
// CHECK-SAME: -> tensor<2x3xui8>
// CHECK: %[[S:.*]] = stablehlo.constant dense<[2.500000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK: %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
// CHECK: %[[DIV:.*]] = stablehlo.select %{{.*}}, %{{.*}}, %[[SB]]
// CHECK: stablehlo.divide %{{.*}}, %[[DIV]] : tensor<2x3xf32>
// CHECK: stablehlo.constant dense<[1.000000e+00, 2.000000e+02]> : tensor<2xf32>
// CHECK: stablehlo.constant dense<0.000000e+00> : tensor<2x3xf32>
// CHECK: stablehlo.constant dense<2.550000e+02> : tensor<2x3xf32>
// CHECK: stablehlo.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xui8>
func.func @per_axis(%x: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:0, {0.25:1,2.0:200}>> {
  %q = stablehlo.uniform_quantize %x : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<u8:f32:0, {0.25:1,2.0:200}>>
  return %q : tensor<2x3x!quant.uniform<u8:f32:0, {0.25:1,2.0:200}>>
}

// -----

// i32 storage with f32: 2^31 - 1 is not an f32, so the rounded value is clamped again in i64.
// CHECK-LABEL: func.func @i32_storage
// CHECK: stablehlo.round_nearest_even
// CHECK: %[[W:.*]] = stablehlo.convert %{{.*}} : (tensor<2xf32>) -> tensor<2xi64>
// CHECK: stablehlo.maximum %[[W]], %{{.*}} : tensor<2xi64>
// CHECK: stablehlo.constant dense<2147483647> : tensor<2xi64>
// CHECK: stablehlo.convert %{{.*}} : (tensor<2xi64>) -> tensor<2xi32>
func.func @i32_storage(%x: tensor<2xf32>) -> tensor<2x!quant.uniform<i32:f32, 0.001>> {
  %q = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i32:f32, 0.001>>
  return %q : tensor<2x!quant.uniform<i32:f32, 0.001>>
}

// -----

// dequantize_op_quantize: add on dequantized f32 values, quantized back; reverse moves storage values.
// CHECK-LABEL: func.func @add_then_reverse
// CHECK-SAME: (%[[A:.*]]: tensor<4xi8>, %[[B:.*]]: tensor<4xi8>) -> tensor<4xi8>
// CHECK: stablehlo.convert %[[A]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[FA:.*]] = stablehlo.multiply
// CHECK: stablehlo.convert %[[B]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK: %[[FB:.*]] = stablehlo.multiply
// CHECK: %[[SUM:.*]] = stablehlo.add %[[FA]], %[[FB]] : tensor<4xf32>
// CHECK: stablehlo.divide %[[SUM]]
// CHECK: %[[Q:.*]] = stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>
// CHECK: %[[R:.*]] = stablehlo.reverse %[[Q]], dims = [0] : tensor<4xi8>
// CHECK: return %[[R]]
func.func @add_then_reverse(%a: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, %b: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {
  %s = stablehlo.add %a, %b : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %r = stablehlo.reverse %s, dims = [0] : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  return %r : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// expected-error @+1 {{quantized elements are lowered in ranked tensors only}}
func.func @unranked(%x: tensor<*x!quant.uniform<i8:f32, 0.5>>) -> tensor<*x!quant.uniform<i8:f32, 0.5>> {
  return %x : tensor<*x!quant.uniform<i8:f32, 0.5>>
}
