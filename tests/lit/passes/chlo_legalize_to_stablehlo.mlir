// RUN: hlokit-opt --chlo-legalize-to-stablehlo --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo))' --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @broadcast_add
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x4xf32>)
// CHECK: %[[BA:.*]] = stablehlo.broadcast_in_dim %[[A]], dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[R:.*]] = stablehlo.add %[[BA]], %[[B]] : tensor<2x4xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: chlo.
func.func @broadcast_add(%a: tensor<4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Explicit broadcast_dimensions are honoured.
// CHECK-LABEL: func.func @broadcast_dims
// CHECK: stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<3xf32>) -> tensor<3x4xf32>
// CHECK: stablehlo.multiply
func.func @broadcast_dims(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = chlo.broadcast_multiply %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func.func @compare
// CHECK: stablehlo.broadcast_in_dim
// CHECK: stablehlo.compare LT, {{.*}} FLOAT : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
func.func @compare(%a: tensor<4xf32>, %b: tensor<2x4xf32>) -> tensor<2x4xi1> {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>, compare_type = #chlo<comparison_type FLOAT>} : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}

// -----

// Same shapes: no broadcast at all.
// CHECK-LABEL: func.func @select_same_shape
// CHECK-NOT: broadcast_in_dim
// CHECK: stablehlo.select
func.func @select_same_shape(%p: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.broadcast_select %p, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @constants
// CHECK-DAG: stablehlo.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-DAG: stablehlo.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NOT: chlo.
func.func @constants(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<2x3xf32>) {
  %0 = chlo.constant dense<2.0> : tensor<3xf32>
  %1 = "chlo.constant_like"(%x) {value = 1.0 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x3xf32>
}

// -----

// is_inf is |x| == inf.
// CHECK-LABEL: func.func @is_inf
// CHECK: %[[ABS:.*]] = stablehlo.abs %arg0
// CHECK: %[[INF:.*]] = stablehlo.constant dense<0x7F800000> : tensor<4xf32>
// CHECK: stablehlo.compare EQ, %[[ABS]], %[[INF]]
func.func @is_inf(%x: tensor<4xf32>) -> tensor<4xi1> {
  %0 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Complex asin goes through real/imag parts and the asin/acos kernel (atan2 for the real part).
// CHECK-LABEL: func.func @asin_complex
// CHECK: stablehlo.real %arg0
// CHECK: stablehlo.imag %arg0
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.log
// CHECK: stablehlo.atan2
// CHECK: stablehlo.complex {{.*}} : tensor<3xcomplex<f32>>
func.func @asin_complex(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %0 = chlo.asin %x : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}

// -----

// top_k: stable descending sort of (values, iota) along the last dimension, then a slice.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[IOTA:.*]] = stablehlo.iota dim = 1 : tensor<3x5xi32>
// CHECK: %[[S:.*]]:2 = "stablehlo.sort"(%arg0, %[[IOTA]]) <{dimension = 1 : i64, is_stable = true}>
// CHECK: stablehlo.compare GT, {{.*}} TOTALORDER
// CHECK: stablehlo.slice %[[S]]#0 [0:3, 0:2]
// CHECK: stablehlo.slice %[[S]]#1 [0:3, 0:2]
func.func @top_k(%x: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %0:2 = chlo.top_k(%x, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  return %0#0, %0#1 : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// mulhi on i32 widens to i64.
// CHECK-LABEL: func.func @mulhi
// CHECK: stablehlo.convert %arg0 : (tensor<4xi32>) -> tensor<4xi64>
// CHECK: stablehlo.multiply {{.*}} : tensor<4xi64>
// CHECK: stablehlo.shift_right_arithmetic
// CHECK: stablehlo.convert {{.*}} : (tensor<4xi64>) -> tensor<4xi32>
func.func @mulhi(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "chlo.mulhi"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Ops nested in regions are legalized too; conj of a real is the operand itself.
// CHECK-LABEL: func.func @nested
// CHECK: stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add
// CHECK-NOT: chlo.
// CHECK: return %{{.*}}, %arg0
func.func @nested(%x: tensor<4xf32>, %y: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  %0 = stablehlo.reduce(%x init: %y) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = chlo.broadcast_add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
    stablehlo.return %s : tensor<f32>
  }
  %1 = chlo.conj %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<f32>, tensor<4xf32>
}

// -----

// ragged_dot (mode 1): a dot_general to [m, g, n], a group mask from the cumulative group sizes,
// then a sum over the groups.
// CHECK-LABEL: func.func @ragged_dot
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1] : (tensor<8x3xf32>, tensor<2x3x5xf32>) -> tensor<8x2x5xf32>
// CHECK: stablehlo.select {{.*}} : tensor<8x2x5xi1>, tensor<8x2x5xf32>
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<8x2x5xf32>, tensor<f32>) -> tensor<8x5xf32>
// CHECK-NOT: chlo.
func.func @ragged_dot(%l: tensor<8x3xf32>, %r: tensor<2x3x5xf32>, %g: tensor<2xi32>) -> tensor<8x5xf32> {
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>} : (tensor<8x3xf32>, tensor<2x3x5xf32>, tensor<2xi32>) -> tensor<8x5xf32>
  return %0 : tensor<8x5xf32>
}

// -----

// broadcast_zeta: broadcast first, then the (f64-evaluated) zeta expansion.
// CHECK-LABEL: func.func @zeta
// CHECK: stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
// CHECK: stablehlo.power {{.*}} : tensor<3x4xf64>
// CHECK: stablehlo.convert {{.*}} : (tensor<3x4xf64>) -> tensor<3x4xf32>
func.func @zeta(%x: tensor<3x4xf32>, %q: tensor<4xf32>) -> tensor<3x4xf32> {
  %0 = chlo.broadcast_zeta %x, %q : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// chlo.scan (no upstream decomposition) becomes a while loop over the scan dimension.
// CHECK-LABEL: func.func @scan
// CHECK: %[[W:.*]]:3 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[C:.*]] = %arg1, %[[ACC:.*]] = %{{.*}}) : tensor<i64>, tensor<f32>, tensor<4xf32>
// CHECK: stablehlo.compare LT, %[[I]]
// CHECK: } do {
// CHECK: %[[SL:.*]] = stablehlo.dynamic_slice %arg0, %[[I]], sizes = [1]
// CHECK: %[[E:.*]] = stablehlo.reshape %[[SL]] : (tensor<1xf32>) -> tensor<f32>
// CHECK: %[[S:.*]] = stablehlo.add %[[E]], %[[C]] : tensor<f32>
// CHECK: stablehlo.dynamic_update_slice %[[ACC]]
// CHECK: return %[[W]]#2, %[[W]]#1
// CHECK-NOT: chlo.
func.func @scan(%x: tensor<4xf32>, %c: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %0:2 = "chlo.scan"(%x, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s, %s : tensor<f32>, tensor<f32>
  }) {dimension = 0 : i64, operandSegmentSizes = array<i32: 1, 1>, resultSegmentSizes = array<i32: 1, 1>} : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<f32>
}
