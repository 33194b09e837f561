// --mlir-elide-elementsattrs-if-larger=N applies to the IR dumps too (as mlir-opt's printing flag does).
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --cse --mlir-print-ir-after-all --mlir-elide-elementsattrs-if-larger=2 -o /dev/null 2>&1 | FileCheck %s
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL

// CHECK: // -----// IR Dump After CSEPass: cse //----- //
// CHECK: stablehlo.constant dense_resource<__elided__> : tensor<4xf32>

// FULL: stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
