// --args, result printing (nested and dense), and argument errors.
// RUN: hlokit-translate %s --interpret --args="[dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>, dense<(1.0,-2.0)> : tensor<complex<f32>>]" | FileCheck %s
// RUN: hlokit-translate %s --interpret --interpreter-print-dense --args="[dense<[[1, 2], [3, 4]]> : tensor<2x2xi16>, dense<(1.0,-2.0)> : tensor<complex<f32>>]" | FileCheck %s --check-prefix=DENSE
// RUN: not hlokit-translate %s --interpret --args="[dense<1> : tensor<2x2xi32>, dense<(1.0,-2.0)> : tensor<complex<f32>>]" 2>&1 | FileCheck %s --check-prefix=BADARG
// RUN: not hlokit-translate %s --interpret 2>&1 | FileCheck %s --check-prefix=NOARGS
// RUN: not hlokit-translate %s --interpret --entry-function=nope --args="[]" 2>&1 | FileCheck %s --check-prefix=NOFUNC

// BADARG: args_and_results.mlir:11:1: error: argument #0 of function '@main' has type tensor<2x2xi32>, the signature expects tensor<2x2xi16>
// NOARGS: args_and_results.mlir:11:1: error: function '@main' takes 2 arguments, got 0
// NOFUNC: error: function '@nope' not found in the module (it has: @main)
func.func @main(%a: tensor<2x2xi16>, %c: tensor<complex<f32>>) -> (tensor<2x2xi16>, tensor<complex<f32>>, tensor<2xi1>) {
  %0 = stablehlo.shift_left %a, %a : tensor<2x2xi16>
  %1 = stablehlo.multiply %c, %c : tensor<complex<f32>>
  %2 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  return %0, %1, %2 : tensor<2x2xi16>, tensor<complex<f32>>, tensor<2xi1>
}

// CHECK:      tensor<2x2xi16> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [2, 8],
// CHECK-NEXT:     [24, 64]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<complex<f32>> {[-3.000000e+00, -4.000000e+00]}
// CHECK-NEXT: tensor<2xi1> {
// CHECK-NEXT:   [true, false]
// CHECK-NEXT: }

// DENSE{LITERAL}: dense<[[2, 8], [24, 64]]> : tensor<2x2xi16>
// DENSE-NEXT: dense<(-3.000000e+00,-4.000000e+00)> : tensor<complex<f32>>
// DENSE-NEXT: dense<[true, false]> : tensor<2xi1>
