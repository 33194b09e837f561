// hlokit-reduce keeps a candidate when `SCRIPT [ARG...] CANDIDATE.mlir` exits 0 (here: grep -q OP FILE); the
// result is the smallest program found, the input is never changed.
// RUN: cp %s %t.in.mlir
// RUN: %python -m hlokit.tools.hlokit_reduce %t.in.mlir --test=grep --test-arg=-q --test-arg=stablehlo.sine -o %t.out.mlir 2> %t.err
// RUN: FileCheck %s < %t.out.mlir
// RUN: FileCheck %s --check-prefix=PROGRESS < %t.err
// RUN: diff %s %t.in.mlir
// CHECK: func.func @main
// CHECK-NOT: stablehlo.cosine
// CHECK-NOT: stablehlo.log
// CHECK: stablehlo.sine
// CHECK-NOT: stablehlo.cosine
// CHECK-NOT: stablehlo.tanh
// PROGRESS: hlokit-reduce: {{[0-9]+}} ops left (from 8), {{[0-9]+}} tests, {{.*}} s [round 1,
// PROGRESS: hlokit-reduce: 8 -> {{[0-9]}} ops, {{[0-9]+}} tests, {{.*}} s

// The same input twice gives the same output.
// RUN: %python -m hlokit.tools.hlokit_reduce %s --test=grep --test-arg=-q --test-arg=stablehlo.sine -q > %t.again.mlir
// RUN: diff %t.out.mlir %t.again.mlir

// A budget stops the search with what the test held on last.
// RUN: %python -m hlokit.tools.hlokit_reduce %s --test=grep --test-arg=-q --test-arg=stablehlo.sine --max-tests=1 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: stablehlo.cosine
// BUDGET: 8 -> 8 ops, 1 tests, {{.*}} stopped by max-tests

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  %2 = stablehlo.sine %1 : tensor<4xf32>
  %3 = stablehlo.cosine %2 : tensor<4xf32>
  %4 = stablehlo.subtract %3, %b : tensor<4xf32>
  %5 = stablehlo.exponential %4 : tensor<4xf32>
  %6 = stablehlo.tanh %5 : tensor<4xf32>
  %7 = stablehlo.log %a : tensor<4xf32>
  return %6 : tensor<4xf32>
}
