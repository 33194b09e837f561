// RUN: hlokit-opt --stablehlo-expand-triangular-solve --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-expand-triangular-solve))' --split-input-file --verify-diagnostics %s | FileCheck %s

// Left, lower, no transpose, batched: forward substitution. The strictly lower triangle and the diagonal
// are masked out once; step j solves row j: (b[j] - a[j, :] x) / a[j, j] with x zero in the rows not
// solved yet.
// CHECK-LABEL: func.func @left_lower
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x4xf32>, %[[B:.*]]: tensor<2x4x3xf32>)
// CHECK: %[[ROWS:.*]] = stablehlo.iota dim = 1 : tensor<2x4x4xi32>
// CHECK: %[[COLS:.*]] = stablehlo.iota dim = 2 : tensor<2x4x4xi32>
// CHECK: %[[STRICT:.*]] = stablehlo.compare GT, %[[ROWS]], %[[COLS]], SIGNED
// CHECK: %[[MS:.*]] = stablehlo.select %[[STRICT]], %[[A]]
// CHECK: %[[ONDIAG:.*]] = stablehlo.compare EQ, %[[ROWS]], %[[COLS]], SIGNED
// CHECK: stablehlo.reduce
// CHECK: %[[DIAG:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x4xf32>) -> tensor<2x4x1xf32>
// CHECK: %[[X0:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<2x4x3xf32>
// CHECK: %[[W:.*]]:5 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[X:.*]] = %[[X0]], %[[M:.*]] = %[[MS]], %[[BB:.*]] = %[[B]], %[[D:.*]] = %[[DIAG]])
// CHECK: do
// CHECK: %[[ROW:.*]] = stablehlo.dynamic_slice %[[M]], %{{.*}}, %[[I]], %{{.*}}, sizes = [2, 1, 4]
// CHECK: %[[S:.*]] = stablehlo.dot_general %[[ROW]], %[[X]], batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST]
// CHECK: %[[BJ:.*]] = stablehlo.dynamic_slice %[[BB]], %{{.*}}, %[[I]], %{{.*}}, sizes = [2, 1, 3]
// CHECK: %[[R:.*]] = stablehlo.subtract %[[BJ]], %[[S]]
// CHECK: %[[DJ:.*]] = stablehlo.dynamic_slice %[[D]], %{{.*}}, %[[I]], %{{.*}}, sizes = [2, 1, 1]
// CHECK: %[[DB:.*]] = stablehlo.broadcast_in_dim %[[DJ]]
// CHECK: %[[XJ:.*]] = stablehlo.divide %[[R]], %[[DB]]
// CHECK: stablehlo.dynamic_update_slice %[[X]], %[[XJ]], %{{.*}}, %[[I]], %{{.*}}
// CHECK: return %[[W]]#1 : tensor<2x4x3xf32>
// CHECK-NOT: stablehlo.triangular_solve
func.func @left_lower(%a: tensor<2x4x4xf32>, %b: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x4x4xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Left, lower, TRANSPOSE: a^T is upper triangular: backward substitution (row n - 1 - i at step i).
// CHECK-LABEL: func.func @left_lower_transpose
// CHECK: %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0]
// CHECK: stablehlo.compare LT
// CHECK: stablehlo.while
// CHECK: do
// CHECK: %[[LAST:.*]] = stablehlo.constant dense<4> : tensor<i32>
// CHECK: %[[J:.*]] = stablehlo.subtract %[[LAST]], %iterArg
// CHECK: stablehlo.dynamic_slice %{{.*}}, %[[J]], %{{.*}}, sizes = [1, 5]
// CHECK-NOT: stablehlo.triangular_solve
func.func @left_lower_transpose(%a: tensor<5x5xf64>, %b: tensor<5x2xf64>) -> tensor<5x2xf64> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<5x5xf64>, tensor<5x2xf64>) -> tensor<5x2xf64>
  return %0 : tensor<5x2xf64>
}

// -----

// Right, upper, ADJOINT, unit diagonal: x a^H = b is conj(a) x^T = b^T (upper), solved on the transposed
// right-hand side and transposed back; no diagonal is read, so no division.
// CHECK-LABEL: func.func @right_upper_adjoint_unit
// CHECK-NOT: stablehlo.transpose %arg0
// CHECK: stablehlo.imag %arg0
// CHECK: stablehlo.negate
// CHECK: stablehlo.complex
// CHECK: %[[BT:.*]] = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<3x4xcomplex<f64>>) -> tensor<4x3xcomplex<f64>>
// CHECK: stablehlo.compare LT
// CHECK: %[[W:.*]]:4 = stablehlo.while
// CHECK-NOT: stablehlo.divide
// CHECK: %[[X:.*]] = stablehlo.transpose %[[W]]#1, dims = [1, 0] : (tensor<4x3xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
// CHECK: return %[[X]]
func.func @right_upper_adjoint_unit(%a: tensor<4x4xcomplex<f64>>, %b: tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose ADJOINT>} : (tensor<4x4xcomplex<f64>>, tensor<3x4xcomplex<f64>>) -> tensor<3x4xcomplex<f64>>
  return %0 : tensor<3x4xcomplex<f64>>
}

// -----

// Right, lower, no transpose: x a = b is a^T x^T = b^T with a^T upper.
// CHECK-LABEL: func.func @right_lower
// CHECK: stablehlo.transpose %arg0, dims = [1, 0]
// CHECK: stablehlo.transpose %arg1, dims = [1, 0]
// CHECK: stablehlo.compare LT
// CHECK: stablehlo.while
func.func @right_lower(%a: tensor<3x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = false, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two rows: unrolled with constant indices; f16 computed in f32.
// CHECK-LABEL: func.func @unrolled_f16
// CHECK: stablehlo.convert %arg0 : (tensor<2x2xf16>) -> tensor<2x2xf32>
// CHECK-NOT: stablehlo.while
// CHECK-COUNT-2: stablehlo.dot_general
// CHECK: stablehlo.convert %{{.*}} : (tensor<2x1xf32>) -> tensor<2x1xf16>
func.func @unrolled_f16(%a: tensor<2x2xf16>, %b: tensor<2x1xf16>) -> tensor<2x1xf16> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x1xf16>
  return %0 : tensor<2x1xf16>
}

// -----

// Over 32 rows: blocked, no loop. Upper is made lower by reversing rows and columns; 40 rows are padded to
// two blocks of 32; the two diagonal blocks are masked to their lower triangle and inverted together by
// recursion on halves (batched products, no loop); then X_0 = inv(M_00) B_0 and
// X_1 = inv(M_11) (B_1 - M_10 X_0), each product small enough to be a broadcast multiply and a reduce.
// CHECK-LABEL: func.func @blocked_upper
// CHECK: %[[RA:.*]] = stablehlo.reverse %arg0, dims = [0, 1] : tensor<40x40xf32>
// CHECK: %[[RB:.*]] = stablehlo.reverse %arg1, dims = [0] : tensor<40x3xf32>
// CHECK: %[[PA:.*]] = stablehlo.pad %[[RA]], %{{.*}}, low = [0, 0], high = [24, 24], interior = [0, 0] : (tensor<40x40xf32>, tensor<f32>) -> tensor<64x64xf32>
// CHECK: %[[PB:.*]] = stablehlo.pad %[[RB]], %{{.*}}, low = [0, 0], high = [24, 0], interior = [0, 0] : (tensor<40x3xf32>, tensor<f32>) -> tensor<64x3xf32>
// CHECK: stablehlo.concatenate {{.*}} -> tensor<2x32x32xf32>
// CHECK-NOT: stablehlo.while
// CHECK: stablehlo.divide
// CHECK: %[[B1:.*]] = stablehlo.slice %[[PB]] [32:64, 0:3]
// CHECK: %[[M10:.*]] = stablehlo.slice %[[PA]] [32:64, 0:32]
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<32x32x3xf32>, tensor<f32>) -> tensor<32x3xf32>
// CHECK: stablehlo.subtract %[[B1]]
// CHECK: %[[X:.*]] = stablehlo.concatenate {{.*}}, dim = 0 : (tensor<32x3xf32>, tensor<32x3xf32>) -> tensor<64x3xf32>
// CHECK: %[[S:.*]] = stablehlo.slice %[[X]] [0:40, 0:3]
// CHECK: %[[R:.*]] = stablehlo.reverse %[[S]], dims = [0] : tensor<40x3xf32>
// CHECK: return %[[R]]
func.func @blocked_upper(%a: tensor<40x40xf32>, %b: tensor<40x3xf32>) -> tensor<40x3xf32> {
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<40x40xf32>, tensor<40x3xf32>) -> tensor<40x3xf32>
  return %0 : tensor<40x3xf32>
}

// -----

// Refused: a dynamic shape (the function is left unchanged).
func.func @dynamic(%a: tensor<4x4xf32>, %b: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // expected-error @+1 {{'stablehlo.triangular_solve' with a dynamic or unranked shape (tensor<4x?xf32>) cannot be expanded (static shapes only)}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xf32>, tensor<4x?xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}
