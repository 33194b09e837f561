// Unsupported ops and custom calls, unregistered ops, and spec errors are located errors, never tracebacks.
// RUN: not hlokit-translate --interpret -split-input-file %s 2>&1 | FileCheck %s
// RUN: not hlokit-translate --interpret -split-input-file -allow-unregistered-dialect %s 2>&1 | FileCheck %s --check-prefix=ALLOW
// CHECK-NOT: Traceback

func.func @custom() -> tensor<2xf32> {
  %a = stablehlo.constant dense<1.0> : tensor<2xf32>
  // CHECK: unsupported.mlir:9:8: error: unsupported custom_call @my_kernel in the interpreter
  %0 = stablehlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @main() {
  // CHECK: unsupported.mlir:18:3: error: 'foo.bar' op is unregistered
  // ALLOW: unsupported.mlir:18:3: error: unsupported op 'foo.bar' in the interpreter
  "foo.bar"() : () -> ()
  func.return
}
