// --mlir-print-ir-after=<pass>[,...]: the IR after those passes only; a pass nested on func.func prints each
// function it ran on (not the module), as mlir-opt does.
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-after=cse -o /dev/null 2>&1 | FileCheck %s
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-after=cse -o /dev/null 2>&1 | grep 'IR Dump' | FileCheck %s --check-prefix=HEADERS
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --stablehlo-legalize-dot-to-dot-general --cse --mlir-print-ir-after=stablehlo-legalize-dot-to-dot-general -o /dev/null 2>&1 | FileCheck %s --check-prefix=PY

// HEADERS: // -----// IR Dump After CSEPass: cse //----- //
// HEADERS-NEXT: // -----// IR Dump After CSEPass: cse //----- //
// HEADERS-NOT: IR Dump

// CHECK: // -----// IR Dump After CSEPass: cse //----- //
// CHECK-NEXT: func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xf32>) -> tensor<2x4xf32> {
// CHECK:        %0 = stablehlo.dot %arg0, %arg1
// CHECK-NEXT:   %1 = stablehlo.broadcast_in_dim
// CHECK-NEXT:   %2 = stablehlo.add %0, %0 : tensor<2x4xf32>
// CHECK: // -----// IR Dump After CSEPass: cse //----- //
// CHECK-NEXT: func.func private @unused() {
// CHECK-NOT: IR Dump

// PY: // -----// IR Dump After StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// PY-NEXT: module {
// PY: %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
// PY-NEXT: %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]
// PY-NOT: IR Dump
