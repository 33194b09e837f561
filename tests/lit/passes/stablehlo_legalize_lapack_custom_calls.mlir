// RUN: hlokit-opt --stablehlo-legalize-lapack-custom-calls --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))' --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --stablehlo-legalize-lapack-custom-calls=strict=true --split-input-file %s | FileCheck %s --check-prefix=NONE

// The output IR of --stablehlo-legalize-lapack-custom-calls, one chunk per routine of its table (the
// algorithms are described in the pass's docstring and docs/lapack.md). Every call comes from a program
// JAX 0.10.2 exported (examples/linalg/*_4x4.mlir, cut to the custom call; gtsv as in
// tests/pytest/test_lapack_legalize.py): the CHECK lines pin the loop structure (the while carries) and the
// ops that characterise each algorithm, so they fail if the pass stops rewriting a routine or changes
// algorithm. Numerical agreement with LAPACK is tested in tests/pytest/test_lapack_legalize.py.
// NONE-NOT: custom_call

// -----

// potrf: stablehlo.cholesky; the other triangle keeps the input (select on row >= column); info is the
// 1-based index of the first diagonal entry of the factor (a stride n + 1 slice) that is not > 0 (minimum
// over n + 1 sentinels).
// CHECK-LABEL: func.func @potrf_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[L:.*]] = stablehlo.cholesky %[[A]], lower = true : tensor<4x4xf32>
// CHECK: %[[LOW:.*]] = stablehlo.compare GE, %{{.*}}, %{{.*}}, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
// CHECK: %[[F:.*]] = stablehlo.select %[[LOW]], %[[L]], %[[A]]
// CHECK: %[[FLAT:.*]] = stablehlo.reshape %[[L]] : (tensor<4x4xf32>) -> tensor<16xf32>
// CHECK: %[[D:.*]] = stablehlo.slice %[[FLAT]] [0:16:5]
// CHECK: stablehlo.compare GT, %[[D]], %{{.*}}, FLOAT
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.minimum across dimensions = [0]
// CHECK: %[[INFO:.*]] = stablehlo.select
// CHECK: return %[[F]], %[[INFO]] : tensor<4x4xf32>, tensor<i32>
func.func @potrf_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<i32>
}

// -----

// Two batch dimensions: one cholesky over the whole batch, info per batch element.
// CHECK-LABEL: func.func @potrf_f64_batched
// CHECK: stablehlo.cholesky %arg0, lower = true : tensor<2x3x4x4xf64>
// CHECK: stablehlo.slice %{{.*}} [0:2, 0:3, 0:16:5] : (tensor<2x3x16xf64>) -> tensor<2x3x4xf64>
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.minimum across dimensions = [2] : (tensor<2x3x4xi32>, tensor<i32>) -> tensor<2x3xi32>
// CHECK: return {{.*}} : tensor<2x3x4x4xf64>, tensor<2x3xi32>
func.func @potrf_f64_batched(%arg0: tensor<2x3x4x4xf64>) -> (tensor<2x3x4x4xf64>, tensor<2x3xi32>) {
  %0:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "2"}, operand_layouts = [dense<[2, 3, 1, 0]> : tensor<4xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[2, 3, 1, 0]> : tensor<4xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3x4x4xf64>) -> (tensor<2x3x4x4xf64>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3x4x4xf64>, tensor<2x3xi32>
}

// -----

// trsm: one stablehlo.triangular_solve; side, uplo, trans_x and diag map to its attributes.
// CHECK-LABEL: func.func @trsm_left_lower
// CHECK-NEXT: %[[X:.*]] = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: return %[[X]]
func.func @trsm_left_lower(%arg0: tensor<4x4xf32>, %arg1: tensor<4x2xf32>) -> (tensor<4x2xf32>) {
  %0 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>)
  return %0 : tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @trsm_upper_trans_unit
// CHECK-NEXT: "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}>
// CHECK-NEXT: return
func.func @trsm_upper_trans_unit(%arg0: tensor<4x4xf32>, %arg1: tensor<4x2xf32>) -> (tensor<4x2xf32>) {
  %0 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>)
  return %0 : tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func.func @trsm_right_c64
// CHECK-NEXT: "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<4x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
// CHECK-NEXT: return
func.func @trsm_right_c64(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<2x4xcomplex<f32>>) -> (tensor<2x4xcomplex<f32>>) {
  %0 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>) -> (tensor<2x4xcomplex<f32>>)
  return %0 : tensor<2x4xcomplex<f32>>
}

// -----

// CHECK-LABEL: func.func @trsm_adjoint_c64
// CHECK-NEXT: "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false}>
// CHECK-NEXT: return
func.func @trsm_adjoint_c64(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4x2xcomplex<f32>>) -> (tensor<4x2xcomplex<f32>>) {
  %0 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 67 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xcomplex<f32>>, tensor<4x2xcomplex<f32>>) -> (tensor<4x2xcomplex<f32>>)
  return %0 : tensor<4x2xcomplex<f32>>
}

// -----

// getrf of at most 64 columns: one panel, a while over the columns (right-looking ?getf2) whose rows stay in
// place: the carry holds each row's position and its inverse. Each step picks the first position of maximum
// |x| at or below the diagonal, records it (0-based; 1 is added after the loop), gathers the pivot row,
// divides the column below the pivot by it (unless it is exactly zero: info = first such column, 1-based)
// and subtracts the rank-1 update; one gather after the loop puts the rows in LAPACK's order.
// CHECK-LABEL: func.func @getrf_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[W:.*]]:6 = stablehlo.while(%[[J:.*]] = %{{.*}}, %[[M:.*]] = %[[A]], %[[P:.*]] = %{{.*}}, %[[I:.*]] = %{{.*}}, %[[POS:.*]] = %{{.*}}, %[[PERM:.*]] = %{{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<4xi32>, tensor<4xi32>
// CHECK: cond
// CHECK: stablehlo.compare LT, %[[J]], %{{.*}}, SIGNED
// CHECK: do
// CHECK: %[[COL:.*]] = stablehlo.dynamic_slice %[[M]], %{{.*}}, %{{.*}}, sizes = [4, 1]
// CHECK: stablehlo.abs
// CHECK: stablehlo.compare GE, %[[POS]], %{{.*}}, SIGNED
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.maximum across dimensions = [0]
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.minimum across dimensions = [0]
// CHECK: stablehlo.dynamic_update_slice %[[P]], %{{.*}}, %[[J]] : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
// CHECK: "stablehlo.gather"(%[[M]], %{{.*}}) {{.*}} -> tensor<1x4xf32>
// CHECK: stablehlo.compare EQ, %{{.*}}, %{{.*}}, FLOAT : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xi1>
// CHECK: stablehlo.divide
// CHECK: stablehlo.multiply
// CHECK: stablehlo.subtract
// CHECK: stablehlo.return
// CHECK: %[[LU:.*]] = "stablehlo.gather"(%[[W]]#1, %{{.*}}) {{.*}} -> tensor<4x4xf32>
// CHECK: %[[IPIV:.*]] = stablehlo.add %[[W]]#2, %{{.*}} : tensor<4xi32>
// CHECK: return %[[LU]], %[[IPIV]], %[[W]]#3 : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>
func.func @getrf_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>
}

// -----

// Complex pivots are chosen on |re| + |im| (as i?amax); the batch dimension rides along in the carries and
// the pivot rows of the batch elements are one gather from the flattened batch.
// CHECK-LABEL: func.func @getrf_c64_batched
// CHECK: %[[W:.*]]:6 = stablehlo.while({{.*}}) : tensor<i32>, tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>, tensor<2x4xi32>, tensor<2x4xi32>
// CHECK: stablehlo.real
// CHECK: stablehlo.abs
// CHECK: stablehlo.imag
// CHECK: stablehlo.abs
// CHECK: stablehlo.add
// CHECK: applies stablehlo.maximum
// CHECK: "stablehlo.gather"({{.*}}) {{.*}} : (tensor<8x4xcomplex<f32>>, tensor<2x1xi32>) -> tensor<2x4xcomplex<f32>>
// CHECK: stablehlo.divide
// CHECK: "stablehlo.gather"({{.*}}) {{.*}} : (tensor<8x4xcomplex<f32>>, tensor<8x1xi32>) -> tensor<8x4xcomplex<f32>>
// CHECK: %[[LU:.*]] = stablehlo.reshape %{{.*}} : (tensor<8x4xcomplex<f32>>) -> tensor<2x4x4xcomplex<f32>>
// CHECK: return %[[LU]], %{{.*}}, %[[W]]#3 : tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>
func.func @getrf_c64_batched(%arg0: tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>) {
  %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x4xcomplex<f32>>) -> (tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2 : tensor<2x4x4xcomplex<f32>>, tensor<2x4xi32>, tensor<2xi32>
}

// -----

// getrf of more than 32 columns is blocked (nb = 32), rows left in place: windows (here two: 80 x 80 with one
// block, then the trailing 48 x 48 with one block and the 16 columns left over), each a while over its whole
// blocks: a full-height column loop of the block (?getf2), its pivot rows gathered (?laswp), U12 by one
// triangular_solve (unit lower L11) and the rows not done updated by one dot_general; after each window one
// gather puts its rows in LAPACK's order and the L columns left of it take its swaps.
// CHECK-LABEL: func.func @getrf_f32_blocked
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<80x80xf32>, tensor<32xi32>, tensor<i32>, tensor<80xi32>, tensor<80xi32>
// CHECK: stablehlo.dynamic_slice {{.*}} sizes = [80, 32]
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<80x32xf32>, tensor<32xi32>, tensor<i32>, tensor<80xi32>, tensor<80xi32>
// CHECK: applies stablehlo.maximum
// CHECK: stablehlo.return
// CHECK: "stablehlo.gather"({{.*}}) {{.*}} -> tensor<32x80xf32>
// CHECK: "stablehlo.triangular_solve"({{.*}}) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<32x32xf32>, tensor<32x80xf32>) -> tensor<32x80xf32>
// CHECK: stablehlo.dot_general {{.*}} : (tensor<80x32xf32>, tensor<32x80xf32>) -> tensor<80x80xf32>
// CHECK: stablehlo.subtract
// CHECK: stablehlo.return
// CHECK: "stablehlo.gather"({{.*}}) {{.*}} -> tensor<80x80xf32>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<48x48xf32>, tensor<48xi32>, tensor<i32>, tensor<48xi32>, tensor<48xi32>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<48x16xf32>, tensor<48xi32>, tensor<i32>, tensor<48xi32>, tensor<48xi32>
// CHECK: %[[LU:.*]] = stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<32x80xf32>, tensor<48x80xf32>) -> tensor<80x80xf32>
// CHECK: %[[IPIV:.*]] = stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<32xi32>, tensor<48xi32>) -> tensor<80xi32>
// CHECK: return %[[LU]], %[[IPIV]], %{{.*}} : tensor<80x80xf32>, tensor<80xi32>, tensor<i32>
func.func @getrf_f32_blocked(%arg0: tensor<80x80xf32>) -> (tensor<80x80xf32>, tensor<80xi32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<80x80xf32>) -> (tensor<80x80xf32>, tensor<80xi32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<80x80xf32>, tensor<80xi32>, tensor<i32>
}

// -----

// geqrf: one while over the columns (unblocked ?geqr2). Each step forms the reflector as ?larfg does
// (scale by max |x|, beta = -sign(alpha) * norm, tau = (beta - alpha) / beta), records tau and applies
// H = I - tau v v^T to the columns on the right with one vector-matrix dot_general.
// CHECK-LABEL: func.func @geqrf_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[W:.*]]:3 = stablehlo.while(%[[J:.*]] = %{{.*}}, %[[M:.*]] = %[[A]], %[[T:.*]] = %{{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: do
// CHECK: stablehlo.dynamic_slice %[[M]], %{{.*}}, %[[J]], sizes = [4, 1]
// CHECK: stablehlo.abs
// CHECK: applies stablehlo.maximum
// CHECK: stablehlo.divide
// CHECK: %[[NORM:.*]] = stablehlo.sqrt %{{.*}} : tensor<f32>
// CHECK: stablehlo.negate %[[NORM]]
// CHECK: stablehlo.dynamic_update_slice %[[T]], %{{.*}}, %[[J]] : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
// CHECK: %[[VA:.*]] = stablehlo.dot_general %{{.*}}, %[[M]], contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: stablehlo.subtract %[[M]], %{{.*}} : tensor<4x4xf32>
// CHECK: return %[[W]]#1, %[[W]]#2 : tensor<4x4xf32>, tensor<4xf32>
func.func @geqrf_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %0:2 = stablehlo.custom_call @lapack_sgeqrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<4xf32>
}

// -----

// orgqr: start from the identity and apply the reflectors backwards (?org2r), one dot_general per step.
// CHECK-LABEL: func.func @orgqr_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[TAU:.*]]: tensor<4xf32>)
// CHECK: %[[EYE:.*]] = stablehlo.select
// CHECK: %[[W:.*]]:4 = stablehlo.while(%[[K:.*]] = %{{.*}}, %[[Q:.*]] = %[[EYE]], %{{.*}} = %[[A]], %{{.*}} = %[[TAU]]) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: do
// CHECK: %[[J:.*]] = stablehlo.subtract %{{.*}}, %[[K]] : tensor<i32>
// CHECK: stablehlo.dynamic_slice %{{.*}}, %{{.*}}, %[[J]], sizes = [4, 1]
// CHECK: stablehlo.dynamic_slice %{{.*}}, %[[J]], sizes = [1]
// CHECK: stablehlo.dot_general %{{.*}}, %[[Q]], contracting_dims = [0] x [0]
// CHECK: stablehlo.subtract %[[Q]], %{{.*}} : tensor<4x4xf32>
// CHECK: return %[[W]]#1 : tensor<4x4xf32>
func.func @orgqr_f32(%arg0: tensor<4x4xf32>, %arg1: tensor<4xf32>) -> (tensor<4x4xf32>) {
  %0 = stablehlo.custom_call @lapack_sorgqr_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf32>, tensor<4xf32>) -> (tensor<4x4xf32>)
  return %0 : tensor<4x4xf32>
}

// -----

// ungqr: the same loop on complex values; v^H enters as a conjugate (real, negated imag, complex).
// CHECK-LABEL: func.func @ungqr_c64
// CHECK: %[[W:.*]]:4 = stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>
// CHECK: stablehlo.imag
// CHECK: stablehlo.negate
// CHECK: stablehlo.dot_general
// CHECK: return %[[W]]#1 : tensor<4x4xcomplex<f32>>
func.func @ungqr_c64(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>) {
  %0 = stablehlo.custom_call @lapack_cungqr_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>)
  return %0 : tensor<4x4xcomplex<f32>>
}

// -----

// geqp3: a first while moves the columns JAX marked as fixed (jpvt != 0) to the front; a second is ?laqp2:
// pivot on the largest partial column norm, Householder step, then downdate the partial norms (and
// recompute them with sqrt where the downdate lost accuracy).
// CHECK-LABEL: func.func @geqp3_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[JPVT:.*]]: tensor<4xi32>)
// CHECK: %[[MOVE:.*]]:4 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[A]], %{{.*}} = %[[JPVT]], %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xi32>, tensor<i32>
// CHECK: %[[W:.*]]:6 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[MOVE]]#1, %{{.*}} = %[[MOVE]]#2, {{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xi32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK: do
// CHECK: applies stablehlo.maximum
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.sqrt
// CHECK: return %[[W]]#1, %[[W]]#2, %[[W]]#3 : tensor<4x4xf32>, tensor<4xi32>, tensor<4xf32>
func.func @geqp3_f32(%arg0: tensor<4x4xf32>, %arg1: tensor<4xi32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %0:3 = stablehlo.custom_call @lapack_sgeqp3_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>]} : (tensor<4x4xf32>, tensor<4xi32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<4xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// syevd: parallel cyclic Jacobi. The symmetric input is made from the lower triangle (transpose + select);
// an outer while runs sweeps until the off-diagonal norm is small, an inner while runs the n - 1
// round-robin rounds (rotations on 2-element vectors with sqrt; the pairs permuted by concatenate);
// the eigenvalues are the diagonal, sorted ascending with their vectors; info from a NaN test.
// CHECK-LABEL: func.func @syevd_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: stablehlo.transpose %[[A]], dims = [1, 0]
// CHECK: %[[SW:.*]]:4 = stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<f32>
// CHECK: do
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: stablehlo.sqrt %{{.*}} : tensor<2xf32>
// CHECK: stablehlo.sqrt %{{.*}} : tensor<2xf32>
// CHECK: stablehlo.concatenate {{.*}} dim = 1 : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x4xf32>
// CHECK: stablehlo.concatenate {{.*}} dim = 0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
// CHECK: applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: %[[S:.*]]:2 = "stablehlo.sort"({{.*}}) <{dimension = 1 : i64, is_stable = true}>
// CHECK: stablehlo.compare LT
// CHECK: applies stablehlo.or
// CHECK: return %[[S]]#1, %{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4xf32>, tensor<i32>
func.func @syevd_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xf32>, tensor<4xf32>, tensor<i32>
}

// -----

// heevd: the same Jacobi sweeps on the Hermitian matrix (conjugate transpose of the lower triangle).
// CHECK-LABEL: func.func @heevd_c64
// CHECK: stablehlo.transpose %arg0, dims = [1, 0]
// CHECK: stablehlo.imag
// CHECK: stablehlo.negate
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<f32>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
// CHECK: stablehlo.sqrt
// CHECK: "stablehlo.sort"
// CHECK: }) : (tensor<4x4xf32>, tensor<4x4xcomplex<f32>>) -> (tensor<4x4xf32>, tensor<4x4xcomplex<f32>>)
// CHECK: return {{.*}} : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
func.func @heevd_c64(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_cheevd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
}

// -----

// gesdd (mode A): one-sided Jacobi sweeps on the columns (carries: sweep, A, V, converged); the singular
// values are the column norms, sorted descending with U's and V's columns; U is re-orthonormalised and
// completed by the QR loops (a geqrf-like while and an orgqr-like while); vt = V^T.
// CHECK-LABEL: func.func @gesdd_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[A]], {{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i1>
// CHECK: do
// CHECK: stablehlo.while
// CHECK: stablehlo.sqrt
// CHECK: applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: stablehlo.sqrt %{{.*}} : tensor<4xf32>
// CHECK: stablehlo.concatenate {{.*}} dim = 0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
// CHECK: "stablehlo.sort"({{.*}}) <{dimension = 1 : i64, is_stable = true}>
// CHECK: stablehlo.compare GT
// CHECK: %[[QR:.*]]:3 = stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: stablehlo.while({{.*}} = %[[QR]]#1, %{{.*}} = %[[QR]]#2) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: %[[VT:.*]] = stablehlo.transpose %{{.*}}, dims = [1, 0]
// CHECK: return %[[A]], %{{.*}}, %{{.*}}, %[[VT]], %{{.*}} : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>
func.func @gesdd_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>
}

// -----

// Mode N: the same sweeps, the values alone sorted, no U / V work (zeros returned for them).
// CHECK-LABEL: func.func @gesdd_values_only
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i1>
// CHECK: stablehlo.sqrt %{{.*}} : tensor<4xf32>
// CHECK: "stablehlo.sort"(%{{.*}}) <{dimension = 0 : i64, is_stable = true}>
// CHECK-NOT: stablehlo.while
// CHECK-NOT: stablehlo.transpose
// CHECK: return
func.func @gesdd_values_only(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>
}

// -----

// gesvd has gesdd's operands and results and the same expansion.
// CHECK-LABEL: func.func @gesvd_f32
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i1>
// CHECK: "stablehlo.sort"({{.*}}) <{dimension = 1 : i64, is_stable = true}>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>
// CHECK: stablehlo.transpose
// CHECK: return
func.func @gesvd_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgesvd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>
}

// -----

// geev (right vectors): ?gebal's balancing (two whiles isolating eigenvalues by row and column
// permutations, then power-of-two scaling by bitcast_convert), Hessenberg reduction, accumulation of Q, zlahqr's single-shift QR iterations to the complex Schur form (the 8-value
// carry), the back-substitution of ?trevc, back-transformation and LAPACK's normalisation.
// CHECK-LABEL: func.func @geev_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
// CHECK: %[[ROWS:.*]]:6 = stablehlo.while(%{{.*}} = %[[A]], {{.*}}) : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i1>
// CHECK: %[[COLS:.*]]:5 = stablehlo.while(%{{.*}} = %[[ROWS]]#0, {{.*}}) : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>
// CHECK: stablehlo.bitcast_convert
// CHECK: %[[HESS:.*]]:4 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[COLS]]#0, {{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4xf32>, tensor<i1>
// CHECK: %[[Q:.*]]:3 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[HESS]]#1, {{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: %[[SCHUR:.*]]:8 = stablehlo.while({{.*}}, %{{.*}} = %[[Q]]#2) : tensor<i32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i32>, tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: stablehlo.while({{.*}} = %[[SCHUR]]#6, %{{.*}} = %[[SCHUR]]#7) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: stablehlo.complex
// CHECK: stablehlo.dot_general {{.*}} : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>
// CHECK: stablehlo.sqrt
// CHECK: return {{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>
func.func @geev_f32(%arg0: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4xf32>, tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>
}

// -----

// Eigenvalues only: the same balancing, reduction and QR iterations, no eigenvector back-substitution.
// CHECK-LABEL: func.func @geev_values_only_c64
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
// CHECK: %[[SCHUR:.*]]:8 = stablehlo.while
// CHECK-NOT: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>{{$}}
// CHECK: return {{.*}} : tensor<4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>
func.func @geev_values_only_c64(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>) {
  %0:4 = stablehlo.custom_call @lapack_cgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3 : tensor<4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<i32>
}

// -----

// Real gees: ?gebal's permutation whiles, Hessenberg reduction, Francis double-shift QR steps to the real Schur form
// (the 8-value carry), ?lanv2's standardisation of 2x2 blocks, Schur vectors accumulated.
// CHECK-LABEL: func.func @gees_real_f32
// CHECK-SAME: -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>)
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xf32>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: %[[SCHUR:.*]]:8 = stablehlo.while
// CHECK: stablehlo.while({{.*}} = %[[SCHUR]]#6, %{{.*}} = %[[SCHUR]]#7) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK: stablehlo.sqrt
// CHECK: %[[VS:.*]]:2 = stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xf32>
// CHECK: return %{{.*}}, %[[VS]]#1, {{.*}} : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>
// CHECK-NOT: complex
func.func @gees_real_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>) {
  %0:6 = stablehlo.custom_call @lapack_sgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i32>, tensor<i32>
}

// -----

// Complex gees: the complex Schur form of geev (single-shift QR), with the Schur vectors.
// CHECK-LABEL: func.func @gees_complex_c64
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<i1>
// CHECK: stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
// CHECK: %[[SCHUR:.*]]:8 = stablehlo.while
// CHECK: %[[VS:.*]]:2 = stablehlo.while({{.*}} = %[[SCHUR]]#7) : tensor<i32>, tensor<4x4xcomplex<f32>>
// CHECK: return %{{.*}}, %[[VS]]#1, {{.*}} : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>, tensor<i32>
func.func @gees_complex_c64(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_cgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<i32>, tensor<i32>
}

// -----

// gehrd: one while (?gehd2): a reflector per column below the subdiagonal, applied from the left and the
// right (two dot_generals); tau has n - 1 entries; info is 0.
// CHECK-LABEL: func.func @gehrd_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[W:.*]]:3 = stablehlo.while(%[[J:.*]] = %{{.*}}, %[[M:.*]] = %[[A]], %[[T:.*]] = %{{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<3xf32>
// CHECK: do
// CHECK: stablehlo.sqrt %{{.*}} : tensor<f32>
// CHECK: stablehlo.dynamic_update_slice %[[T]], %{{.*}}, %[[J]] : (tensor<3xf32>, tensor<1xf32>, tensor<i32>) -> tensor<3xf32>
// CHECK: stablehlo.dot_general %[[M]], %{{.*}}, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: return %[[W]]#1, %[[W]]#2, %{{.*}} : tensor<4x4xf32>, tensor<3xf32>, tensor<i32>
func.func @gehrd_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_sgehrd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {high = 4 : i32, low = 1 : i32}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<3xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xf32>, tensor<3xf32>, tensor<i32>
}

// -----

// sytrd (uplo L): one while (?sytd2) on the symmetric matrix: reflector, the symmetric rank-2 update
// through one matrix-vector dot_general; d is the diagonal, e and tau n - 1 long.
// CHECK-LABEL: func.func @sytrd_f32
// CHECK: %[[W:.*]]:4 = stablehlo.while(%[[J:.*]] = %{{.*}}, %{{.*}} = %arg0, %[[E:.*]] = %{{.*}}, %[[T:.*]] = %{{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<3xf32>, tensor<3xf32>
// CHECK: do
// CHECK: stablehlo.sqrt %{{.*}} : tensor<f32>
// CHECK: stablehlo.transpose
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: stablehlo.dynamic_update_slice %[[E]], %{{.*}}, %[[J]]
// CHECK: stablehlo.dynamic_update_slice %[[T]], %{{.*}}, %[[J]]
// CHECK: return %[[W]]#1, %{{.*}}, %[[W]]#2, %[[W]]#3, %{{.*}} : tensor<4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>
func.func @sytrd_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_ssytrd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<i32>
}

// -----

// hetrd: the same on a Hermitian matrix; e is real, tau complex.
// CHECK-LABEL: func.func @hetrd_c64
// CHECK: %[[W:.*]]:4 = stablehlo.while({{.*}}) : tensor<i32>, tensor<4x4xcomplex<f32>>, tensor<3xf32>, tensor<3xcomplex<f32>>
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.dot_general
// CHECK: return %[[W]]#1, %{{.*}}, %[[W]]#2, %[[W]]#3, %{{.*}} : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<3xf32>, tensor<3xcomplex<f32>>, tensor<i32>
func.func @hetrd_c64(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<3xf32>, tensor<3xcomplex<f32>>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_chetrd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<3xf32>, tensor<3xcomplex<f32>>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<3xf32>, tensor<3xcomplex<f32>>, tensor<i32>
}

// -----

// gtsv: Gaussian elimination with partial pivoting over the rows (compare |d| with |dl|, swap, eliminate:
// the same row swaps and factors as ?gtsv), then back substitution in a second while.
// CHECK-LABEL: func.func @gtsv_f32
// CHECK-SAME: (%[[DL:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>, %[[DU:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4x2xf32>)
// CHECK: %[[FWD:.*]]:6 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[DL]], %{{.*}} = %[[D]], %{{.*}} = %[[DU]], %{{.*}} = %[[B]], %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<i32>
// CHECK: do
// CHECK: stablehlo.abs
// CHECK: stablehlo.abs
// CHECK: stablehlo.divide
// CHECK: stablehlo.dynamic_update_slice {{.*}} : (tensor<4x2xf32>, tensor<1x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x2xf32>
// CHECK: %[[BACK:.*]]:2 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[FWD]]#4) : tensor<i32>, tensor<4x2xf32>
// CHECK: stablehlo.divide {{.*}} : tensor<1x2xf32>
// CHECK: return %[[FWD]]#1, %[[FWD]]#2, %[[FWD]]#3, %[[BACK]]#1, %{{.*}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<i32>
func.func @gtsv_f32(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_sgtsv_ffi(%arg0, %arg1, %arg2, %arg3) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<i32>
}
