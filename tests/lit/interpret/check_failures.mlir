// Failed checks are located errors; every chunk still runs; the exit code is 1.
// RUN: not hlokit-translate --interpret -split-input-file %s 2>&1 | FileCheck %s

func.func @eq_fails() {
  %0 = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: check_failures.mlir:7:3: error: check.expect_eq_const failed: element [2] is 3, expected 4 (1 of 3 elements differ)
  check.expect_eq_const %0, dense<[1, 2, 4]> : tensor<3xi32>
  func.return
}

// -----

func.func @almost_eq_fails() {
  %0 = stablehlo.constant dense<1.0> : tensor<f32>
  %1 = stablehlo.constant dense<1.01> : tensor<f32>
  // CHECK: check_failures.mlir:17:3: error: check.expect_almost_eq failed: element [] is 1.000000e+00, expected 1.010000e+00
  check.expect_almost_eq %0, %1 : tensor<f32>
  func.return
}

// -----

func.func @close_fails() {
  %0 = stablehlo.constant dense<1.0> : tensor<f16>
  %1 = stablehlo.constant dense<1.01> : tensor<f16>
  // CHECK: check_failures.mlir:27:3: error: check.expect_close failed: ULP distance 10 not in [0, 3]
  check.expect_close %0, %1, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  func.return
}

// -----

func.func @passes_and_prints() {
  %0 = stablehlo.constant dense<[1.5, 2.5]> : tensor<2xbf16>
  check.expect_almost_eq_const %0, dense<[1.5, 2.5]> : tensor<2xbf16>
  // CHECK: %0 = tensor<2xbf16> {
  // CHECK-NEXT:   [1.500000e+00, 2.500000e+00]
  // CHECK-NEXT: }
  interpreter.print %0 : tensor<2xbf16>
  func.return
}

// -----

func.func @custom_call_check_forms() {
  %e = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %a = stablehlo.constant dense<[1.0, 2.001]> : tensor<2xf32>
  // CHECK: check_failures.mlir:49:3: error: check.expect_close failed
  stablehlo.custom_call @check.expect_close(%e, %a) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}
