// hlokit's Python pass (not jaxlib's C++ pass of the same name) is the one that runs: the IR dump
// header names the Python pass class as hlokit's instrumentation spells it (MLIR's would read
// "ChloLegalizeToStablehloPass (chlo-legalize-to-stablehlo)"), f32 erf is expanded in f32 (the default
// precision=native), and the pass takes the precision option, which upstream's pass does not have
// (precision=wide: f32 erf through f64).
// RUN: hlokit-opt --chlo-legalize-to-stablehlo --mlir-print-ir-after-all %s 2>&1 | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo))' --mlir-print-ir-after-all %s 2>&1 | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo{precision=wide}))' %s | FileCheck %s --check-prefix=WIDE

// CHECK: IR Dump After ChloLegalizeToStablehlo: chlo-legalize-to-stablehlo //
// CHECK-NOT: chlo.erf
// CHECK-NOT: f64
// WIDE: tensor<4xf64>
// WIDE-NOT: chlo.erf
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Expanded ops carry the location of the CHLO op they replace, as MLIR's own rewrites do (never a
// position inside the expansion template).
// RUN: hlokit-opt --chlo-legalize-to-stablehlo --mlir-print-debuginfo %s | FileCheck %s --check-prefix=LOC
// LOC: stablehlo.multiply {{.*}} loc(#[[L:loc[0-9]*]])
// LOC: #[[L]] = loc("{{.*}}pass_identity.mlir":16:8)
// LOC-NOT: loc("-"
