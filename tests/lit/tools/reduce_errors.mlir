// Bad tests of hlokit-reduce: a clear error, exit 1, nothing written, never a traceback.
// RUN: rm -f %t.out
// RUN: not %python -m hlokit.tools.hlokit_reduce %s --test=%t.no_such_script -o %t.out 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not test -e %t.out
// MISSING: hlokit-reduce: error: --test: the test script '{{.*}}no_such_script' does not exist

// RUN: not %python -m hlokit.tools.hlokit_reduce %s --test=%s -o %t.out 2>&1 | FileCheck %s --check-prefix=NOEXEC
// RUN: not test -e %t.out
// NOEXEC: hlokit-reduce: error: --test: the test script '{{.*}}reduce_errors.mlir' is not executable

// The test must hold on the input itself.
// RUN: not %python -m hlokit.tools.hlokit_reduce %s --test=grep --test-arg=-q --test-arg=stablehlo.cbrt -o %t.out 2>&1 | FileCheck %s --check-prefix=FALSE
// RUN: not test -e %t.out
// FALSE: reduce_errors.mlir: error: the test script 'grep' does not hold on the input: it exited with 1; nothing to reduce
// FALSE-NOT: Traceback

// RUN: not %python -m hlokit.tools.hlokit_reduce %s --test=sh --test-arg=-c '--test-arg=sleep 10' --test-timeout=0.5 -o %t.out 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: not test -e %t.out
// TIMEOUT: reduce_errors.mlir: error: the test script 'sh' does not hold on the input: it did not finish within 0.5 s

// RUN: not %python -m hlokit.tools.hlokit_reduce %s --until=xla-crashes 2>&1 | FileCheck %s --check-prefix=UNTIL
// UNTIL: hlokit-reduce: error: --until=xla-crashes: expected one of xla-crash, engines-differ[=ULP], error-matches=REGEX, pass-fails=PIPELINE

// RUN: not %python -m hlokit.tools.hlokit_reduce %s 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: hlokit-reduce: error: give exactly one of --test=SCRIPT and --until=KIND

// A built-in test false on the input: the engines agree on this program.
// RUN: not %python -m hlokit.tools.hlokit_reduce %s --until=engines-differ=4 -o %t.out 2>&1 | FileCheck %s --check-prefix=AGREE
// RUN: not test -e %t.out
// AGREE: reduce_errors.mlir: error: --until=engines-differ does not hold on the input: the engines agree on all 1 output(s) (--max-ulp 4); nothing to reduce

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
