// A failing upstream C++ pass leaves a reproducer too; --run-reproducer gives the same failure.
// RUN: rm -f %t.global %t.local
// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(func.func(canonicalize),vhlo-to-version{target=0.0.1})' --mlir-pass-pipeline-crash-reproducer=%t.global 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: error: target version 0.0.1 is less than minimum supported 0.9.0
// FAIL-NEXT: error: Failures have been detected while processing an MLIR pass pipeline
// FAIL-NEXT: note: Pipeline failed while executing [`vhlo-to-version` on 'builtin.module' operation]: reproducer generated at `{{.*}}.global`
// RUN: FileCheck %s --check-prefix=GLOBAL --input-file=%t.global
// GLOBAL: stablehlo.constant dense<7>
// GLOBAL: pipeline: "builtin.module(func.func(canonicalize),vhlo-to-version{target=0.0.1})",
// RUN: not hlokit-opt --run-reproducer %t.global 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: error: target version 0.0.1 is less than minimum supported 0.9.0
// AGAIN-NOT: error

// Local, with the passes as flags: canonicalize has run, the failing pass alone remains.
// RUN: not hlokit-opt %s --canonicalize --vhlo-to-version=target=0.0.1 --mlir-pass-pipeline-crash-reproducer=%t.local --mlir-pass-pipeline-local-reproducer 2>&1 | FileCheck %s --check-prefix=LOCALERR
// LOCALERR: note: Pipeline failed while executing `vhlo-to-version` on 'builtin.module' operation: reproducer generated at `{{.*}}.local`
// RUN: FileCheck %s --check-prefix=LOCAL --input-file=%t.local
// LOCAL-NOT: dense<7>
// LOCAL: pipeline: "builtin.module(vhlo-to-version{target=0.0.1})",
// RUN: not hlokit-opt --run-reproducer %t.local 2>&1 | FileCheck %s --check-prefix=AGAIN

// A pass only nested on functions, given as a flag, is written under func.func(...) as mlir-opt nests it.
// RUN: not hlokit-opt %s --canonicalize --stablehlo-check-shape-assertions --vhlo-to-version=target=0.0.1 --mlir-pass-pipeline-crash-reproducer=%t.global 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: FileCheck %s --check-prefix=NESTED --input-file=%t.global
// NESTED: pipeline: "builtin.module(canonicalize,func.func(stablehlo-check-shape-assertions),vhlo-to-version{target=0.0.1})",
// RUN: not hlokit-opt --run-reproducer %t.global 2>&1 | FileCheck %s --check-prefix=AGAIN

func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  %unused = stablehlo.constant dense<7> : tensor<2xi32>
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xi32>
  return %0 : tensor<2xi32>
}
