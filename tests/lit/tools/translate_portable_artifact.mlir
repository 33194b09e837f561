// RUN: hlokit-translate --serialize --target=current %s -o %t.bc
// RUN: hlokit-translate --deserialize %t.bc | FileCheck %s
// RUN: hlokit-translate --serialize --target=1.0.0 %s | hlokit-translate --deserialize - | FileCheck %s
// RUN: rm -f %t.chlo.bc
// RUN: not hlokit-translate --serialize --target=current %S/Inputs/chlo.mlir -o %t.chlo.bc 2>&1 | FileCheck %s --check-prefix=CHLO
// RUN: not test -e %t.chlo.bc
// RUN: not hlokit-translate --serialize --target=banana %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not hlokit-translate --serialize %s 2>&1 | FileCheck %s --check-prefix=NOTARGET
// RUN: not hlokit-translate --deserialize %s 2>&1 | FileCheck %s --check-prefix=DESER
// RUN: not hlokit-translate %s 2>&1 | FileCheck %s --check-prefix=MODE
// --strip-debuginfo (stablehlo-translate's): the artifact holds no location naming the source file.
// RUN: hlokit-translate --serialize --target=current --strip-debuginfo %s -o %t.strip.bc
// RUN: hlokit-translate --deserialize %t.strip.bc | FileCheck %s
// RUN: not grep -a -q translate_portable_artifact.mlir %t.strip.bc
// RUN: grep -a -q translate_portable_artifact.mlir %t.bc

// CHECK-LABEL: func.func @main
// CHECK: stablehlo.exponential
// CHECK: stablehlo.add
// CHLO: chlo.mlir:3:8: error: 'chlo.erfc' is a CHLO op: CHLO has no compatibility guarantee and cannot be serialized; legalize it first: hlokit-opt --chlo-legalize-to-stablehlo
// TARGET: error: invalid --target 'banana': expected current, minimum or X.Y.Z
// NOTARGET: error: --serialize needs --target=current|minimum|X.Y.Z
// DESER: error: cannot deserialize the StableHLO portable artifact
// MODE: error: choose exactly one mode
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.add %0, %a : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}
