// RUN: hlokit-opt --stablehlo-expand-cholesky --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-expand-cholesky))' --split-input-file --verify-diagnostics %s | FileCheck %s

// Lower, batched: a while over the columns; each step subtracts L @ conj(L[j, :]) from column j of A
// (one dot_general), takes sqrt of the pivot, records a NaN pivot per batch element and writes the
// column. Batch elements with a NaN pivot are filled with NaN at the end, as XLA does.
// CHECK-LABEL: func.func @lower
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x4xf32>)
// CHECK-DAG: %[[NOERR:.*]] = stablehlo.constant dense<false> : tensor<2x1x1xi1>
// CHECK-DAG: %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<2x4x4xf32>
// CHECK: %[[W:.*]]:4 = stablehlo.while(%[[J:.*]] = %{{.*}}, %[[L:.*]] = %[[ZERO]], %[[AA:.*]] = %[[A]], %[[E:.*]] = %[[NOERR]])
// CHECK: cond
// CHECK: stablehlo.compare LT, %[[J]], %{{.*}}, SIGNED
// CHECK: do
// CHECK: %[[ROW:.*]] = stablehlo.dynamic_slice %[[L]], %{{.*}}, %[[J]], %{{.*}}, sizes = [2, 1, 4]
// CHECK: %[[COL:.*]] = stablehlo.dynamic_slice %[[AA]], %{{.*}}, %{{.*}}, %[[J]], sizes = [2, 4, 1]
// CHECK: %[[S:.*]] = stablehlo.dot_general %[[L]], %[[ROW]], batching_dims = [0] x [0], contracting_dims = [2] x [2], precision = [HIGHEST, HIGHEST]
// CHECK: %[[C:.*]] = stablehlo.subtract %[[COL]], %[[S]] : tensor<2x4x1xf32>
// CHECK: %[[D:.*]] = stablehlo.dynamic_slice %[[C]], %{{.*}}, %[[J]], %{{.*}}, sizes = [2, 1, 1]
// CHECK: %[[ROOT:.*]] = stablehlo.sqrt %[[D]] : tensor<2x1x1xf32>
// CHECK: %[[NAN:.*]] = stablehlo.compare NE, %[[ROOT]], %[[ROOT]]
// CHECK: stablehlo.or %[[E]], %[[NAN]] : tensor<2x1x1xi1>
// CHECK: stablehlo.divide %[[C]]
// CHECK: stablehlo.dynamic_update_slice %[[L]], %{{.*}}, %{{.*}}, %{{.*}}, %[[J]] : (tensor<2x4x4xf32>, tensor<2x4x1xf32>
// CHECK: %[[BAD:.*]] = stablehlo.broadcast_in_dim %[[W]]#3, dims = [0, 1, 2] : (tensor<2x1x1xi1>) -> tensor<2x4x4xi1>
// CHECK: %[[NANS:.*]] = stablehlo.constant dense<0x7FC00000> : tensor<2x4x4xf32>
// CHECK: %[[R:.*]] = stablehlo.select %[[BAD]], %[[NANS]], %[[W]]#1
// CHECK: return %[[R]]
// CHECK-NOT: stablehlo.cholesky
func.func @lower(%a: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

// Upper, complex: the lower factor of the transpose, transposed back; the pivot is sqrt of the real
// part, made complex again; the conjugate of the row enters the dot.
// CHECK-LABEL: func.func @upper_complex
// CHECK: %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
// CHECK: stablehlo.while
// CHECK: stablehlo.negate
// CHECK: stablehlo.complex
// CHECK: stablehlo.dot_general
// CHECK: %[[RE:.*]] = stablehlo.real
// CHECK: %[[ROOT:.*]] = stablehlo.sqrt %[[RE]] : tensor<1x1xf64>
// CHECK: stablehlo.complex %[[ROOT]]
// CHECK: %[[NAN:.*]] = stablehlo.constant dense<0x7FF8000000000000> : tensor<3x3xf64>
// CHECK: stablehlo.complex %[[NAN]]
// CHECK: %[[F:.*]] = stablehlo.select
// CHECK: %[[U:.*]] = stablehlo.transpose %[[F]], dims = [1, 0]
// CHECK: return %[[U]] : tensor<3x3xcomplex<f64>>
func.func @upper_complex(%a: tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>> {
  %0 = "stablehlo.cholesky"(%a) {lower = false} : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>>
  return %0 : tensor<3x3xcomplex<f64>>
}

// -----

// Two columns: unrolled, the indices are constants.
// CHECK-LABEL: func.func @unrolled
// CHECK-NOT: stablehlo.while
// CHECK-COUNT-2: stablehlo.sqrt
// CHECK-NOT: stablehlo.cholesky
// CHECK: return
func.func @unrolled(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// bf16 is computed in f32 and rounded once.
// CHECK-LABEL: func.func @bf16
// CHECK: stablehlo.convert %arg0 : (tensor<5x5xbf16>) -> tensor<5x5xf32>
// CHECK: stablehlo.while
// CHECK: %[[R:.*]] = stablehlo.convert %{{.*}} : (tensor<5x5xf32>) -> tensor<5x5xbf16>
// CHECK: return %[[R]]
func.func @bf16(%a: tensor<5x5xbf16>) -> tensor<5x5xbf16> {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<5x5xbf16>) -> tensor<5x5xbf16>
  return %0 : tensor<5x5xbf16>
}

// -----

// Every op is expanded (both from one template: the same signature).
// CHECK-LABEL: func.func @two
// CHECK-COUNT-2: stablehlo.while
// CHECK-NOT: stablehlo.cholesky
func.func @two(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "stablehlo.cholesky"(%b) {lower = true} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Refused: a dynamic shape (the function is left unchanged).
func.func @dynamic(%a: tensor<?x4x4xf32>) -> tensor<?x4x4xf32> {
  // expected-error @+1 {{'stablehlo.cholesky' with a dynamic or unranked shape (tensor<?x4x4xf32>) cannot be expanded (static shapes only)}}
  %0 = "stablehlo.cholesky"(%a) {lower = true} : (tensor<?x4x4xf32>) -> tensor<?x4x4xf32>
  return %0 : tensor<?x4x4xf32>
}
