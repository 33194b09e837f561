// RUN: hlokit-opt --stablehlo-legalize-cuda-custom-calls --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-cuda-custom-calls))' --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --stablehlo-legalize-cuda-custom-calls=strict=true --split-input-file %s | FileCheck %s --check-prefix=NONE

// The output IR of --stablehlo-legalize-cuda-custom-calls, one chunk per target of its table, each call as
// JAX 0.10.2 writes it for platforms=["cuda"] (jax.export; cut to the custom call, sharding rules dropped).
// The CHECK lines pin the ops that characterise each expansion and the result order and types of
// the calling convention (tests/pytest/test_gpu_custom_calls.py tests the numbers).
// NONE-NOT: custom_call

// potrf (lower = true): stablehlo.cholesky, the other triangle kept, info = first non-positive pivot.
// CHECK-LABEL: func.func @cusolver_potrf_4x4xf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.cholesky %arg0, lower = true : tensor<4x4xf32>
func.func @cusolver_potrf_4x4xf32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @cusolver_potrf_ffi(%arg0) {mhlo.backend_config = {lower = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<i32>
}

// -----

// getrf: LAPACK's ?getf2 as one while loop; i32 1-based pivots, info.
// CHECK-LABEL: func.func @cusolver_getrf_3x4xf64
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: return {{.*}} : tensor<3x4xf64>, tensor<3xi32>, tensor<i32>
func.func @cusolver_getrf_3x4xf64(%arg0: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3xi32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @cusolver_getrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3xi32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<3x4xf64>, tensor<3xi32>, tensor<i32>
}

// -----

// geqrf, batched complex: ?geqr2 as one while loop (Householder reflectors, taus).
// CHECK-LABEL: func.func @cusolver_geqrf_2x4x3xcf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: return {{.*}} : tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>
func.func @cusolver_geqrf_2x4x3xcf32(%arg0: tensor<2x4x3xcomplex<f32>>) -> (tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) {
  %0:2 = stablehlo.custom_call @cusolver_geqrf_ffi(%arg0) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x4x3xcomplex<f32>>) -> (tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>)
  return %0#0, %0#1 : tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>
}

// -----

// orgqr (JAX writes orgqr for complex too): ?org2r, backward accumulation from the identity.
// CHECK-LABEL: func.func @cusolver_orgqr_2x4x3xcf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: return {{.*}} : tensor<2x4x3xcomplex<f32>>
func.func @cusolver_orgqr_2x4x3xcf32(%arg0: tensor<2x4x3xcomplex<f32>>, %arg1: tensor<2x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>> {
  %0 = stablehlo.custom_call @cusolver_orgqr_ffi(%arg0, %arg1) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>]} : (tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
  return %0 : tensor<2x4x3xcomplex<f32>>
}

// -----

// syevd (algorithm 0, lower): the Hermitian matrix of the lower triangle, two-sided Jacobi, eigenvalues
// sorted ascending with the vectors; results [v, w, info].
// CHECK-LABEL: func.func @cusolver_syevd_4x4xcf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: stablehlo.sort
// CHECK: return {{.*}} : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
func.func @cusolver_syevd_4x4xcf32(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @cusolver_syevd_ffi(%arg0) {mhlo.backend_config = {algorithm = 0 : ui8, lower = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>
}

// -----

// sytrd (lower = false): the upper reduction is the lower one on the reversed matrix.
// CHECK-LABEL: func.func @cusolver_sytrd_4x4xf64
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x4xf64>
// CHECK: stablehlo.while
// CHECK: return {{.*}} : tensor<4x4xf64>, tensor<4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>
func.func @cusolver_sytrd_4x4xf64(%arg0: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @cusolver_sytrd_ffi(%arg0) {mhlo.backend_config = {lower = false}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x4xf64>, tensor<4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<i32>
}

// -----

// gesvdj, batched, full_matrices: one-sided Jacobi; the fourth result is V itself (not V^H): the
// adjoint of the expansion's V^H.
// CHECK-LABEL: func.func @cusolver_gesvdj_2x4x3xf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: stablehlo.transpose %{{.*}}, dims = [0, 2, 1] : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
// CHECK: return %arg0, {{.*}} : tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x4x4xf32>, tensor<2x3x3xf32>, tensor<2xi32>
func.func @cusolver_gesvdj_2x4x3xf32(%arg0: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x4x4xf32>, tensor<2x3x3xf32>, tensor<2xi32>) {
  %0:5 = stablehlo.custom_call @cusolver_gesvdj_ffi(%arg0) {mhlo.backend_config = {compute_uv = true, full_matrices = true}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>]} : (tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x4x4xf32>, tensor<2x3x3xf32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<2x4x3xf32>, tensor<2x3xf32>, tensor<2x4x4xf32>, tensor<2x3x3xf32>, tensor<2xi32>
}

// -----

// gesvdj, compute_uv = false: U and V are still allocated (JAX does not read them): zeros.
// CHECK-LABEL: func.func @cusolver_gesvdj_3x5xcf64
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x5xcomplex<f64>>) -> tensor<5x3xcomplex<f64>>
// CHECK: return %arg0, {{.*}} : tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>
func.func @cusolver_gesvdj_3x5xcf64(%arg0: tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @cusolver_gesvdj_ffi(%arg0) {mhlo.backend_config = {compute_uv = false, full_matrices = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<3x5xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<5x5xcomplex<f64>>, tensor<i32>
}

// -----

// gesvd with m < n: transposed = true and row-major layouts; the kernel factors A^T, so its
// third result is V^H of A ([3, 5]) and its fourth U ([3, 3]).
// CHECK-LABEL: func.func @cusolver_gesvd_3x5xf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
// CHECK: return %arg0, {{.*}} : tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>, tensor<3x3xf32>, tensor<i32>
func.func @cusolver_gesvd_3x5xf32(%arg0: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>, tensor<3x3xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @cusolver_gesvd_ffi(%arg0) {mhlo.backend_config = {compute_uv = true, full_matrices = false, transposed = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>, tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>, tensor<3x3xf32>, tensor<i32>
}

// -----

// gesvd, compute_uv = false: U and V^H are 0-d placeholders, filled with zeros.
// CHECK-LABEL: func.func @cusolver_gesvd_4x3xf64
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.constant dense<0.000000e+00> : tensor<f64>
// CHECK: return %arg0, {{.*}} : tensor<4x3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<i32>
func.func @cusolver_gesvd_4x3xf64(%arg0: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @cusolver_gesvd_ffi(%arg0) {mhlo.backend_config = {compute_uv = false, full_matrices = true, transposed = false}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>]} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<i32>
}

// -----

// gesvdp (polar): the convention of gesvdj (V, not V^H).
// CHECK-LABEL: func.func @cusolver_gesvdp_4x3xf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK: return %arg0, {{.*}} : tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>
func.func @cusolver_gesvdp_4x3xf32(%arg0: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @cusolver_gesvdp_ffi(%arg0) {mhlo.backend_config = {compute_uv = true, full_matrices = true}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1, %0#2, %0#3, %0#4 : tensor<4x3xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<3x3xf32>, tensor<i32>
}

// -----

// gtsv2: LAPACK ?gtsv's elimination and back substitution (two while loops); only x is returned.
// CHECK-LABEL: func.func @cusparse_gtsv2_4xf32
// CHECK-NOT: stablehlo.custom_call
// CHECK: stablehlo.while
// CHECK: stablehlo.while
// CHECK: return %{{.*}} : tensor<4x2xf32>
func.func @cusparse_gtsv2_4xf32(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %0 = stablehlo.custom_call @cusparse_gtsv2_ffi(%arg0, %arg1, %arg2, %arg3) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 3, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}
