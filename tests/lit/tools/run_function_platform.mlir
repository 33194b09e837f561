// RUN: hlokit-run %s --function helper | FileCheck %s
// CHECK: function: @helper
// CHECK: output_0: shape=3 dtype=int32 min={{.*}} nan=0
// RUN: hlokit-run %s | FileCheck %s --check-prefix=MAIN
// MAIN: output_0: shape=3 dtype=int32
// MAIN: output_1: shape=scalar dtype=bool
// A platform jax has no plugin for here gets a clear message (cuda/rocm/tpu are absent on CPU-only machines).
// RUN: not hlokit-run %s --platform rocm 2>&1 | FileCheck %s --check-prefix=PLATFORM
// PLATFORM: error: platform 'rocm' is not available
// PLATFORM-NOT: Traceback
func.func @main(%a: tensor<3xi32>) -> (tensor<3xi32>, tensor<i1>) {
  %0 = func.call @helper(%a) : (tensor<3xi32>) -> tensor<3xi32>
  %c = stablehlo.constant dense<true> : tensor<i1>
  func.return %0, %c : tensor<3xi32>, tensor<i1>
}
func.func @helper(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = stablehlo.multiply %a, %a : tensor<3xi32>
  func.return %0 : tensor<3xi32>
}
