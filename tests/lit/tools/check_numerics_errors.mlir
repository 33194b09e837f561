// hlokit-opt --check-numerics: bad option values and an input that does not run give a located error, exit 1,
// no traceback, and no -o file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hlokit-opt %s --cse --check-numerics=gpu -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=ENGINE
// RUN: not test -e %t/out.mlir
// ENGINE: hlokit-opt: error: --check-numerics: unknown engine 'gpu' (expected interpreter or xla)
// RUN: not hlokit-opt %s --cse --check-numerics --max-ulp=-2 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=ULP
// RUN: not test -e %t/out.mlir
// ULP: hlokit-opt: error: --max-ulp: expected a finite number >= 0, got -2.0
// RUN: not hlokit-opt %s --cse --check-numerics --max-ulp 1 --rtol 1e-3 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: hlokit-opt: error: --max-ulp cannot be combined with --rtol / --atol: give one kind of bound
// RUN: not hlokit-opt %s --cse --seed 3 -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: hlokit-opt: error: --seed: only used with --check-numerics, which is not given
// RUN: not hlokit-opt %s --cse --check-numerics --inputs %t/missing.npz -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NPZ
// NPZ: missing.npz: error: --inputs: no such file
// RUN: not test -e %t/out.mlir

// RUN: not hlokit-opt %s --cse --check-numerics -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=RUNS
// RUN: not test -e %t/out.mlir
// RUNS: check_numerics_errors.mlir:[[# @LINE + 3]]:8: error: --check-numerics: the input program does not run on interpreter: unsupported custom_call @no_such_target
// RUNS-NOT: Traceback
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @no_such_target(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
