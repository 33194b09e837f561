// --mlir-print-ir-after-change (with an after-flag): the IR after a pass only where it changed it: cse on
// @main (two equal dots), the dot legalization, symbol-dce (removes @unused); not cse on @unused, not
// canonicalize. Alone it prints nothing, as in mlir-opt.
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-after=cse,canonicalize --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --cse --mlir-print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=ALONE

// CHECK: // -----// IR Dump After CSEPass: cse //----- //
// CHECK-NEXT: func.func @main(
// CHECK-NOT: func.func private @unused() {
// CHECK: // -----// IR Dump After StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// CHECK-NOT: CanonicalizerPass
// CHECK: // -----// IR Dump After SymbolDCEPass: symbol-dce //----- //
// CHECK-NEXT: module {
// CHECK-NOT: @unused
// CHECK-NOT: IR Dump

// LIST: // -----// IR Dump After CSEPass: cse //----- //
// LIST-NOT: IR Dump

// ALONE-NOT: IR Dump
