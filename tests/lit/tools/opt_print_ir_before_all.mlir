// --mlir-print-ir-before-all: the IR before every pass, Python and C++ (jaxlib's own IR printing; the
// exact text is checked against jaxlib's PassManager in tests/pytest/test_pass_instrumentation.py).
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-before-all -o /dev/null 2>&1 | FileCheck %s

// CHECK: // -----// IR Dump Before CSEPass: cse //----- //
// CHECK-NEXT: func.func @main(
// CHECK: // -----// IR Dump Before CSEPass: cse //----- //
// CHECK-NEXT: func.func private @unused() {
// CHECK: // -----// IR Dump Before StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// CHECK-NEXT: module {
// CHECK: // -----// IR Dump Before CanonicalizerPass: canonicalize{cse-between-iterations=false    max-iterations=10 max-num-rewrites=-1 region-simplify=normal test-convergence=false top-down=true} //----- //
// CHECK-NEXT: func.func @main(
// CHECK: // -----// IR Dump Before CanonicalizerPass: canonicalize{{.*}} //----- //
// CHECK-NEXT: func.func private @unused() {
// CHECK: // -----// IR Dump Before SymbolDCEPass: symbol-dce //----- //
// CHECK-NOT: IR Dump After
