// hlokit's Python pass (not jaxlib's C++ pass of the same name) is the one that runs: the IR dump
// header names the Python pass class, and f32 erf is expanded through f64 (ours; upstream stays in f32).
// RUN: hlokit-opt --chlo-legalize-to-stablehlo --mlir-print-ir-after-all %s 2>&1 | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo))' --mlir-print-ir-after-all %s 2>&1 | FileCheck %s

// CHECK: IR Dump After ChloLegalizeToStablehlo
// CHECK: tensor<4xf64>
// CHECK-NOT: chlo.erf
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Expanded ops carry the location of the CHLO op they replace, as MLIR's own rewrites do (never a
// position inside the expansion template).
// RUN: hlokit-opt --chlo-legalize-to-stablehlo --mlir-print-debuginfo %s | FileCheck %s --check-prefix=LOC
// LOC: stablehlo.multiply {{.*}} loc(#[[L:loc[0-9]*]])
// LOC: #[[L]] = loc("{{.*}}pass_identity.mlir":10:8)
// LOC-NOT: loc("-"
