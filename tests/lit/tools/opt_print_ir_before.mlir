// --mlir-print-ir-before=<pass>[,...]: the IR before those passes only, a Python pass (dot -> dot_general)
// and C++ passes alike, in MLIR's dump format (headers as jaxlib's PassManager prints them).
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-before=stablehlo-legalize-dot-to-dot-general,symbol-dce -o /dev/null 2>&1 | FileCheck %s
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-before=stablehlo-legalize-dot-to-dot-general,symbol-dce -o /dev/null 2>&1 | grep 'IR Dump' | FileCheck %s --check-prefix=HEADERS
// RUN: not hlokit-opt %S/Inputs/print_ir.mlir --cse --mlir-print-ir-before=no-such-pass 2>&1 | FileCheck %s --check-prefix=ERR

// HEADERS: // -----// IR Dump Before StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// HEADERS-NEXT: // -----// IR Dump Before SymbolDCEPass: symbol-dce //----- //
// HEADERS-NOT: IR Dump

// CHECK: // -----// IR Dump Before StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
// CHECK:          %0 = stablehlo.dot %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:     %1 = stablehlo.broadcast_in_dim
// CHECK: // -----// IR Dump Before SymbolDCEPass: symbol-dce //----- //
// CHECK-NEXT: module {
// CHECK:      stablehlo.dot_general
// CHECK:      func.func private @unused()
// CHECK-NOT: IR Dump

// ERR: error: --mlir-print-ir-before: unknown pass 'no-such-pass'
