// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// RUN: not hlokit-translate --interpret %S/Inputs/unsupported_custom_call.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// Control flow through the tool.

// ERR: unsupported_custom_call.mlir:4:8: error: unsupported custom_call @my.kernel

// while + if + func.call: 10! computed iteratively and recursively.
// CHECK: dense<3628800> : tensor<i64>
// CHECK: dense<3628800> : tensor<i64>
func.func @fact(%n: tensor<i64>) -> tensor<i64> {
  %one = stablehlo.constant dense<1> : tensor<i64>
  %le = stablehlo.compare LE, %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %r = "stablehlo.if"(%le) ({
    stablehlo.return %one : tensor<i64>
  }, {
    %m = stablehlo.subtract %n, %one : tensor<i64>
    %f = func.call @fact(%m) : (tensor<i64>) -> tensor<i64>
    %p = stablehlo.multiply %n, %f : tensor<i64>
    stablehlo.return %p : tensor<i64>
  }) : (tensor<i1>) -> tensor<i64>
  func.return %r : tensor<i64>
}
func.func @main() -> (tensor<i64>, tensor<i64>) {
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %one, %acc = %one) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LE, %i, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %acc1 = stablehlo.multiply %acc, %i : tensor<i64>
    %i1 = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %i1, %acc1 : tensor<i64>, tensor<i64>
  }
  %f = func.call @fact(%ten) : (tensor<i64>) -> tensor<i64>
  func.return %r#1, %f : tensor<i64>, tensor<i64>
}

// -----

// case: an out-of-range index runs the last branch.
// CHECK: dense<1> : tensor<2xi64>
func.func @main() -> tensor<2xi64> {
  %index = stablehlo.constant dense<7> : tensor<i32>
  %b0 = stablehlo.constant dense<0> : tensor<2xi64>
  %b1 = stablehlo.constant dense<1> : tensor<2xi64>
  %r = "stablehlo.case"(%index) ({
    stablehlo.return %b0 : tensor<2xi64>
  }, {
    stablehlo.return %b1 : tensor<2xi64>
  }) : (tensor<i32>) -> tensor<2xi64>
  func.return %r : tensor<2xi64>
}
