// A bad reproducer is a located error, exit 1, no traceback (each chunk is a reproducer of its own).
// RUN: not hlokit-opt --run-reproducer --split-input-file %s 2>&1 | FileCheck %s
// CHECK-NOT: Traceback

// CHECK: opt_reproducer_errors.mlir: error: no reproducer here: the file has no '{-# external_resources: { mlir_reproducer: { pipeline: "..." } } #-}' entry
func.func @a() {
  return
}

// -----

// CHECK: opt_reproducer_errors.mlir:19:7: error: unknown 'mlir_reproducer' resource key 'pipelines'
func.func @b() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      pipelines: "builtin.module(cse)"
    }
  }
#-}

// -----

// CHECK: opt_reproducer_errors.mlir:33:53: error: expected 'true' or 'false' for the reproducer's 'verify_each'
func.func @c() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse)", verify_each: 1
    }
  }
#-}

// -----

// CHECK: opt_reproducer_errors.mlir:47:17: error: the reproducer's invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass
func.func @d() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(no-such-pass)"
    }
  }
#-}

// -----

// CHECK: opt_reproducer_errors.mlir:60:5: error: 'mlir_reproducer' has no pipeline (its 'pipeline' entry is missing or empty)
func.func @e() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      verify_each: false
    }
  }
#-}

// -----

// CHECK: opt_reproducer_errors.mlir:75:39: error: malformed file metadata: expected ',' or '}' after the value of 'pipeline'
func.func @f() {
  return
}
{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(cse)" verify_each: true
    }
  }
#-}

// Flags that do not go with --run-reproducer.
// RUN: not hlokit-opt --run-reproducer --canonicalize %s 2>&1 | FileCheck %s --check-prefix=FLAGS
// FLAGS: hlokit-opt: error: --run-reproducer runs the reproducer's own pipeline: it cannot be combined with --pass-pipeline, pass flags or --check-numerics
// RUN: not hlokit-opt --mlir-pass-pipeline-local-reproducer %s 2>&1 | FileCheck %s --check-prefix=LOCAL
// LOCAL: hlokit-opt: error: --mlir-pass-pipeline-local-reproducer needs --mlir-pass-pipeline-crash-reproducer=FILE
