// RUN: hlokit-opt %s --split-input-file --stablehlo-legalize-deprecated-ops | FileCheck %s
// RUN: hlokit-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))' | FileCheck %s
// RUN: hlokit-opt %s --split-input-file --stablehlo-legalize-deprecated-ops | FileCheck %s --check-prefix=NONE
// Refused ops: located errors, nothing rewritten before the refusal, -o not written.
// RUN: hlokit-opt %S/Inputs/deprecated_ops_errors.mlir --split-input-file --verify-diagnostics --stablehlo-legalize-deprecated-ops
// RUN: not hlokit-opt %S/Inputs/deprecated_ops_errors.mlir --stablehlo-legalize-deprecated-ops -o %t.out 2>&1 | FileCheck %s --check-prefix=LOC
// RUN: test ! -e %t.out
// LOC: deprecated_ops_errors.mlir:6:8: error: 'stablehlo.einsum': label 'b' of einsum config 'ab,bc->ac' has sizes 3 and 4
// NONE-NOT: stablehlo.einsum
// NONE-NOT: stablehlo.unary_einsum
// NONE-NOT: stablehlo.torch_index_select
// NONE-NOT: stablehlo.cross-replica-sum
// NONE-NOT: stablehlo.create_token
// NONE-NOT: stablehlo.broadcast {{.*}}sizes
// NONE-NOT: stablehlo.dot {{.*}}:

// hlokit's Python pass runs under the upstream flag, as a flag and inside --pass-pipeline: jaxlib's C++
// pass of this name keeps stablehlo.einsum (tests/pytest/test_legalize_deprecated_ops.py runs it as an
// oracle), ours lowers it.
// RUN: hlokit-opt %s --split-input-file --stablehlo-legalize-deprecated-ops --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: hlokit-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(stablehlo-legalize-deprecated-ops))' --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: IR Dump After StablehloLegalizeDeprecatedOps

// CHECK-LABEL: func.func @op_dot
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x?xf32>) -> tensor<2x?xf32>
func.func @op_dot(%arg0: tensor<2x3xf32>, %arg1: tensor<3x?xf32>) -> tensor<2x?xf32> {
  %0 = "stablehlo.dot"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3x?xf32>) -> tensor<2x?xf32>
  func.return %0 : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @op_broadcast
// CHECK: stablehlo.broadcast_in_dim %arg0, dims = [3] : (tensor<1xf32>) -> tensor<4x3x2x1xf32>
func.func @op_broadcast(%arg: tensor<1xf32>) -> tensor<4x3x2x1xf32> {
  %0 = "stablehlo.broadcast"(%arg) {broadcast_sizes = array<i64: 4, 3, 2>} : (tensor<1xf32>) -> tensor<4x3x2x1xf32>
  func.return %0 : tensor<4x3x2x1xf32>
}

// -----

// CHECK-LABEL: func.func @op_broadcast_dynamic
// CHECK: %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0
// CHECK: %[[S:.*]] = stablehlo.concatenate
// CHECK: stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [1, 2] : (tensor<?x3xi32>, tensor<3xi32>) -> tensor<5x?x3xi32>
func.func @op_broadcast_dynamic(%arg: tensor<?x3xi32>) -> tensor<5x?x3xi32> {
  %0 = stablehlo.broadcast %arg, sizes = [5] : (tensor<?x3xi32>) -> tensor<5x?x3xi32>
  func.return %0 : tensor<5x?x3xi32>
}

// -----

// CHECK-LABEL: func.func @op_create_token
// CHECK: stablehlo.after_all  : !stablehlo.token
func.func @op_create_token() -> !stablehlo.token {
  %0 = "stablehlo.create_token"() : () -> !stablehlo.token
  func.return %0 : !stablehlo.token
}

// -----

// CHECK-LABEL: func.func @op_cross_replica_sum
// CHECK{LITERAL}: "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>}> ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>):
// CHECK-NEXT: %[[S:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<f32>
// CHECK-NEXT: stablehlo.return %[[S]] : tensor<f32>
func.func @op_cross_replica_sum(%arg0: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.cross-replica-sum"(%arg0) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// A batch label (i), a contracting label (k), free labels (j, m).
// CHECK-LABEL: func.func @op_einsum
// CHECK: %[[R:.*]] = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @op_einsum(%arg0: tensor<3x4x5xf32>, %arg1: tensor<3x5x6xf32>) -> tensor<3x4x6xf32> {
  %0 = "stablehlo.einsum"(%arg0, %arg1) {einsum_config = "ijk,ikm->ijm"} : (tensor<3x4x5xf32>, tensor<3x5x6xf32>) -> tensor<3x4x6xf32>
  func.return %0 : tensor<3x4x6xf32>
}

// -----

// The output order differs from dot_general's (batch, lhs free, rhs free): one transpose.
// CHECK-LABEL: func.func @op_einsum_transposed
// CHECK: %[[R:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<2x4xi32>
// CHECK-NEXT: stablehlo.transpose %[[R]], dims = [1, 0] : (tensor<2x4xi32>) -> tensor<4x2xi32>
func.func @op_einsum_transposed(%a: tensor<2x3xi32>, %b: tensor<3x4xi32>) -> tensor<4x2xi32> {
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ca" : (tensor<2x3xi32>, tensor<3x4xi32>) -> tensor<4x2xi32>
  func.return %0 : tensor<4x2xi32>
}

// -----

// A label summed out of one operand (d) is reduced before the dot_general.
// CHECK-LABEL: func.func @op_einsum_sum_one_side
// CHECK: stablehlo.reduce(%arg1 init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK: stablehlo.dot_general %arg0, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
func.func @op_einsum_sum_one_side(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2xf32> {
  %0 = stablehlo.einsum %a, %b, config = "ab,bd->a" : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// A diagonal: reshape to n*n and a slice of stride n + 1 (exact, no arithmetic).
// CHECK-LABEL: func.func @op_unary_einsum_diagonal
// CHECK: %[[F:.*]] = stablehlo.reshape %arg0 : (tensor<4x4xf64>) -> tensor<16xf64>
// CHECK-NEXT: %[[D:.*]] = stablehlo.slice %[[F]] [0:16:5] : (tensor<16xf64>) -> tensor<4xf64>
// CHECK-NEXT: return %[[D]]
func.func @op_unary_einsum_diagonal(%arg0: tensor<4x4xf64>) -> tensor<4xf64> {
  %0 = stablehlo.unary_einsum %arg0, config = "ii->i" : (tensor<4x4xf64>) -> tensor<4xf64>
  func.return %0 : tensor<4xf64>
}

// -----

// CHECK-LABEL: func.func @op_unary_einsum
// CHECK: stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
func.func @op_unary_einsum(%arg0: tensor<8x16xf32>) -> tensor<8xf32> {
  %0 = "stablehlo.unary_einsum"(%arg0) {einsum_config = "ab->a"} : (tensor<8x16xf32>) -> tensor<8xf32>
  func.return %0 : tensor<8xf32>
}

// -----

// Ellipsis dimensions act as batch labels.
// CHECK-LABEL: func.func @op_einsum_ellipsis
// CHECK: stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<2x3x4x5xbf16>, tensor<2x3x5x6xbf16>) -> tensor<2x3x4x6xbf16>
func.func @op_einsum_ellipsis(%a: tensor<2x3x4x5xbf16>, %b: tensor<2x3x5x6xbf16>) -> tensor<2x3x4x6xbf16> {
  %0 = stablehlo.einsum %a, %b, config = "...ij,...jk->...ik" : (tensor<2x3x4x5xbf16>, tensor<2x3x5x6xbf16>) -> tensor<2x3x4x6xbf16>
  func.return %0 : tensor<2x3x4x6xbf16>
}

// -----

// CHECK-LABEL: func.func @op_torch_index_select
// CHECK: "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 5>}> : (tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>
func.func @op_torch_index_select(%arg0: tensor<5x1x5xi32>, %arg1: tensor<2xi32>) -> tensor<2x1x5xi32> {
  %0 = "stablehlo.torch_index_select"(%arg0, %arg1) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>
  func.return %0 : tensor<2x1x5xi32>
}

// -----

// batch_dims = 1: the shared leading dimension becomes a gather batching dimension.
// CHECK-LABEL: func.func @op_torch_index_select_batch
// CHECK: "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [3], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 3>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 3>}> : (tensor<2x5x3xf32>, tensor<2x4x6xi64>) -> tensor<2x4x6x3xf32>
func.func @op_torch_index_select_batch(%x: tensor<2x5x3xf32>, %i: tensor<2x4x6xi64>) -> tensor<2x4x6x3xf32> {
  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<2x5x3xf32>, tensor<2x4x6xi64>) -> tensor<2x4x6x3xf32>
  func.return %0 : tensor<2x4x6x3xf32>
}

// -----

// Ops inside regions are rewritten too.
// CHECK-LABEL: func.func @in_region
// CHECK: stablehlo.while
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.broadcast_in_dim
func.func @in_region(%v: tensor<3xf32>, %m: tensor<3x3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c, %x = %v) : tensor<i32>, tensor<3xf32>
    cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %y = stablehlo.einsum %x, %m, config = "i,ij->j" : (tensor<3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
      %s = stablehlo.broadcast %one, sizes = [1] : (tensor<i32>) -> tensor<1xi32>
      stablehlo.return %n, %y : tensor<i32>, tensor<3xf32>
    }
  func.return %r#1 : tensor<3xf32>
}

// -----

// A label repeated in the output (XLA's extension): broadcast, then zeros off the diagonal.
// CHECK-LABEL: func.func @op_einsum_output_diagonal
// CHECK: %[[R:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[B:.*]] = stablehlo.broadcast_in_dim %[[R]], dims = [0, 2] : (tensor<2x4xf32>) -> tensor<2x2x4xf32>
// CHECK: %[[I0:.*]] = stablehlo.iota dim = 0 : tensor<2x2x4xi32>
// CHECK: %[[I1:.*]] = stablehlo.iota dim = 1 : tensor<2x2x4xi32>
// CHECK: %[[M:.*]] = stablehlo.compare EQ, %[[I0]], %[[I1]]
// CHECK: stablehlo.select %[[M]], %[[B]], %{{.*}} : tensor<2x2x4xi1>, tensor<2x2x4xf32>
func.func @op_einsum_output_diagonal(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x2x4xf32> {
  %0 = stablehlo.einsum %a, %b, config = "ij,jk->iik" : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x2x4xf32>
  func.return %0 : tensor<2x2x4xf32>
}
