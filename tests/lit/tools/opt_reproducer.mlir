// Crash and failure reproducers (--mlir-pass-pipeline-crash-reproducer, --mlir-pass-pipeline-local-reproducer,
// --run-reproducer), in the form mlir-opt writes them (mlir/lib/Pass/PassCrashRecovery.cpp).
// RUN: rm -f %t.global %t.local %t.none

// A Python pass that refuses an op: the pass's own error, then mlir-opt's summary naming the reproducer.
// RUN: not hlokit-opt %s --canonicalize --stablehlo-legalize-lapack-custom-calls=strict=true --mlir-pass-pipeline-crash-reproducer=%t.global 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: opt_reproducer.mlir:54:8: error: cannot legalize custom_call @lapack_sfoo_ffi
// FAIL-NEXT: opt_reproducer.mlir:1:1: error: Failures have been detected while processing an MLIR pass pipeline
// FAIL-NEXT: opt_reproducer.mlir:1:1: note: Pipeline failed while executing [`StablehloLegalizeLapackCustomCalls` on 'builtin.module' operation]: reproducer generated at `{{.*}}.global`
// FAIL-NOT: Traceback

// The global reproducer: the IR before the pipeline (canonicalize has not removed the unused constant) and the
// whole pipeline, the flags nested as mlir-opt nests them.
// RUN: FileCheck %s --check-prefix=GLOBAL --input-file=%t.global
// GLOBAL: module {
// GLOBAL: stablehlo.constant dense<7> : tensor<2xi32>
// GLOBAL: stablehlo.custom_call @lapack_sfoo_ffi
// GLOBAL:      {-#
// GLOBAL-NEXT:   external_resources: {
// GLOBAL-NEXT:     mlir_reproducer: {
// GLOBAL-NEXT:       pipeline: "builtin.module(canonicalize,stablehlo-legalize-lapack-custom-calls{strict=true})",
// GLOBAL-NEXT:       disable_threading: true,
// GLOBAL-NEXT:       verify_each: true
// GLOBAL-NEXT:     }
// GLOBAL-NEXT:   }
// GLOBAL-NEXT: #-}

// --run-reproducer gives the same failure (located in the reproducer), exit 1; the file parses without a warning.
// RUN: not hlokit-opt --run-reproducer %t.global 2>&1 | FileCheck %s --check-prefix=AGAIN
// AGAIN: .tmp.{{global|local}}:{{[0-9]+}}:{{[0-9]+}}: error: cannot legalize custom_call @lapack_sfoo_ffi
// AGAIN-NOT: error
// RUN: hlokit-opt %t.global 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE-NOT: warning
// PARSE: stablehlo.custom_call @lapack_sfoo_ffi
// PARSE-NOT: mlir_reproducer

// Local: the IR just before the failing pass (the constant is gone) and that pass alone.
// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(func.func(canonicalize),stablehlo-legalize-lapack-custom-calls{strict=true})' --mlir-pass-pipeline-crash-reproducer=%t.local --mlir-pass-pipeline-local-reproducer 2>&1 | FileCheck %s --check-prefix=LOCALERR
// LOCALERR: note: Pipeline failed while executing `StablehloLegalizeLapackCustomCalls` on 'builtin.module' operation: reproducer generated at `{{.*}}.local`
// RUN: FileCheck %s --check-prefix=LOCAL --input-file=%t.local
// LOCAL-NOT: dense<7>
// LOCAL: stablehlo.custom_call @lapack_sfoo_ffi
// LOCAL: pipeline: "builtin.module(stablehlo-legalize-lapack-custom-calls{strict=true})",
// RUN: not hlokit-opt --run-reproducer %t.local 2>&1 | FileCheck %s --check-prefix=AGAIN

// Nothing is written when no pass fails.
// RUN: hlokit-opt %s --canonicalize --mlir-pass-pipeline-crash-reproducer=%t.none | FileCheck %s --check-prefix=OK
// RUN: not test -e %t.none
// OK: stablehlo.custom_call @lapack_sfoo_ffi

func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  %unused = stablehlo.constant dense<7> : tensor<2xi32>
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xi32>
  %1 = stablehlo.custom_call @lapack_sfoo_ffi(%0) : (tensor<2xi32>) -> tensor<2xi32>
  return %1 : tensor<2xi32>
}
