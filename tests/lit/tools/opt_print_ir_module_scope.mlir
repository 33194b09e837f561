// --mlir-print-ir-module-scope: a pass on func.func prints the whole module, its header naming the op it
// ran on ('func.func' operation: @main).
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general)' --mlir-print-ir-after-all --mlir-print-ir-module-scope -o /dev/null 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump After CSEPass: cse ('func.func' operation: @main) //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @main(
// CHECK: // -----// IR Dump After CSEPass: cse ('func.func' operation: @unused) //----- //
// CHECK-NEXT: module {
// CHECK: // -----// IR Dump After StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general ('builtin.module' operation) //----- //
// CHECK-NEXT: module {
