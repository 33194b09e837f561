// RUN: hlokit-opt --stablehlo-legalize-lapack-custom-calls=strict=true --split-input-file --verify-diagnostics %s
// RUN: not hlokit-opt --stablehlo-legalize-lapack-custom-calls --split-input-file %s 2>&1 | FileCheck %s --check-prefix=LOOSE

// Located errors of --stablehlo-legalize-lapack-custom-calls (its output IR: stablehlo_legalize_lapack_custom_calls.mlir).

// A lapack_* target the pass has no rewrite for: left as it is, refused with strict=true.
// LOOSE-DAG: stablehlo.custom_call @lapack_sgeqrt_ffi
// LOOSE-DAG: error: {{.*}}'uplo' is 'X'
// LOOSE-DAG: error: {{.*}}dynamic shapes
func.func @unknown(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{cannot legalize custom_call @lapack_sgeqrt_ffi}}
  %0 = stablehlo.custom_call @lapack_sgeqrt_ffi(%a) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// A backend_config flag outside the routine's table: refused at the op, before any rewrite.
func.func @bad_uplo(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>) {
  // expected-error @+1 {{'uplo' is 'X', expected one of L, U}}
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 88 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<i32>
}

// -----

// The expansions are built for static shapes.
func.func @dynamic(%a: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<i32>) {
  // expected-error @+1 {{dynamic}}
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<?x4xf32>, tensor<i32>
}
