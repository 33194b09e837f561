// Python passes and upstream C++ passes in one pipeline, by flags and by --pass-pipeline.
// RUN: hlokit-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,stablehlo-legalize-dot-to-dot-general,cse),symbol-dce)' | FileCheck %s
// RUN: hlokit-opt %s --canonicalize --stablehlo-legalize-dot-to-dot-general --cse --symbol-dce | FileCheck %s
// RUN: hlokit-opt %s --pass-pipeline='builtin.module(func.func(canonicalize,stablehlo-legalize-dot-to-dot-general),symbol-dce)' --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMP
// RUN: hlokit-opt %s --stablehlo-legalize-dot-to-dot-general --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIMING

// CHECK-LABEL: func.func @main
// CHECK: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [HIGH, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: stablehlo.add %[[D]], %[[D]]
// CHECK-NOT: stablehlo.dot %
// CHECK-NOT: @unused
// DUMP: IR Dump After CanonicalizerPass
// DUMP: IR Dump After StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general
// DUMP: stablehlo.dot_general
// DUMP: IR Dump After SymbolDCE
// TIMING: Execution time report
// TIMING: StablehloLegalizeDotToDotGeneral
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot %a, %b, precision = [HIGH, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.dot %a, %b, precision = [HIGH, HIGHEST] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
  func.return %2 : tensor<2x4xf32>
}
func.func private @unused() {
  func.return
}
