// jaxlib's LAPACK custom calls in the input of --interpret are legalized first with hlokit's
// stablehlo-legalize-lapack-custom-calls pass (potrf -> stablehlo.cholesky, syevd -> a Jacobi loop).
// RUN: hlokit-translate --interpret %s | FileCheck %s

func.func @main() -> (tensor<2x2xf32>, tensor<2xi32>, tensor<2xf32>) {
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf32>
  %l:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8},
      operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
      result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]}
      : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<i32>)
  %h = stablehlo.constant dense<[[2.0, 1.0], [1.0, 2.0]]> : tensor<2x2xf32>
  %e:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%h) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8},
      operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
      result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]}
      : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>)
  check.expect_almost_eq_const %l#0, dense<[[2.0, 2.0], [1.0, 2.0]]> : tensor<2x2xf32>
  %info = stablehlo.reshape %l#1 : (tensor<i32>) -> tensor<1xi32>
  %both = stablehlo.concatenate %info, %info, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  check.expect_almost_eq_const %e#1, dense<[1.0, 3.0]> : tensor<2xf32>
  return %l#0, %both, %e#1 : tensor<2x2xf32>, tensor<2xi32>, tensor<2xf32>
}
// CHECK:      tensor<2x2xf32> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [2.000000e+00, 2.000000e+00],
// CHECK-NEXT:     [1.000000e+00, 2.000000e+00]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2xi32> {
// CHECK-NEXT:   [0, 0]
// CHECK-NEXT: }
