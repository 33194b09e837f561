// CHLO in the input of --interpret is legalized first with hlokit's own chlo-legalize-to-stablehlo pass.
// RUN: hlokit-translate --interpret -split-input-file %s | FileCheck %s

func.func @main() -> tensor<2x3xf32> {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = stablehlo.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  check.expect_eq_const %0, dense<[[11.0, 22.0, 33.0], [14.0, 25.0, 36.0]]> : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
// CHECK:      tensor<2x3xf32> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [1.100000e+01, 2.200000e+01, 3.300000e+01],
