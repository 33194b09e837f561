// --dump-pass-pipeline: the pass manager that runs, as mlir-opt prints it (OpPassManager::dump, pretty form):
// C++ passes with every option, Python passes by their argument, at the top level where hlokit runs them.
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse,canonicalize{max-iterations=3}),stablehlo-legalize-dot-to-dot-general,symbol-dce)' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: Pass Manager with 3 passes:
// CHECK-NEXT: builtin.module(
// CHECK-NEXT: func.func(
// CHECK-NEXT: cse,
// CHECK-NEXT: canonicalize{cse-between-iterations=false    max-iterations=3 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true}
// CHECK-NEXT: ),
// CHECK-NEXT: stablehlo-legalize-dot-to-dot-general,
// CHECK-NEXT: symbol-dce
// CHECK-NEXT: )

// NONE: Pass Manager with 0 passes:
// NONE-NEXT: builtin.module(
// NONE-NEXT: {{^$}}
// NONE-NEXT: {{^}})
