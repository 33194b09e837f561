// --mlir-print-ir-after-failure: the IR only after a pass that failed (header "... Failed: ..."), then the
// located error; nothing for the passes that succeeded.
// RUN: not hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-refine-arguments{types=tensor<f32>})' --mlir-print-ir-after-failure 2>&1 | FileCheck %s
// RUN: not hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-refine-arguments{types=tensor<f32>})' --mlir-print-ir-after-failure 2>&1 | grep -c 'IR Dump' | FileCheck %s --check-prefix=COUNT

// CHECK: // -----// IR Dump After StablehloRefineArgumentsPass Failed: stablehlo-refine-arguments{types={tensor<f32>}} //----- //
// CHECK-NEXT: module {
// CHECK:      stablehlo.add %0, %0
// CHECK-NOT: IR Dump
// CHECK: print_ir.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'func.func' op number of refinements must match number of op operands 1 vs 2

// COUNT: {{^}}1{{$}}
