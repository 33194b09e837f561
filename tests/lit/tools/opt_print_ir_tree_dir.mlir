// --mlir-print-ir-tree-dir=DIR: one file per dump, in a tree mirroring the IR (<op>_<symbol> folders) and
// named <counters>_<pass>.mlir, as MLIR's IRPrinting names them; nothing on stderr.
// RUN: rm -rf %t
// RUN: hlokit-opt %S/Inputs/print_ir.mlir --pass-pipeline='builtin.module(func.func(cse),stablehlo-legalize-dot-to-dot-general,func.func(canonicalize),symbol-dce)' --mlir-print-ir-after-all --mlir-print-ir-tree-dir=%t -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=STDERR
// RUN: find %t -type f | sort | FileCheck %s --check-prefix=FILES
// RUN: cat %t/builtin_module_no-symbol-name/1_stablehlo-legalize-dot-to-dot-general.mlir | FileCheck %s --check-prefix=PY
// RUN: not hlokit-opt %S/Inputs/print_ir.mlir --cse --mlir-print-ir-after=cse --mlir-print-ir-tree-dir=%t 2>&1 | FileCheck %s --check-prefix=ERR

// STDERR-NOT: IR Dump

// FILES:      builtin_module_no-symbol-name/1_stablehlo-legalize-dot-to-dot-general.mlir
// FILES-NEXT: builtin_module_no-symbol-name/2_symbol-dce.mlir
// FILES-NEXT: builtin_module_no-symbol-name/func_func_main/0_0_cse.mlir
// FILES-NEXT: builtin_module_no-symbol-name/func_func_main/1_1_canonicalize.mlir
// FILES-NEXT: builtin_module_no-symbol-name/func_func_unused/0_0_cse.mlir
// FILES-NEXT: builtin_module_no-symbol-name/func_func_unused/1_1_canonicalize.mlir

// PY: // -----// IR Dump After StablehloLegalizeDotToDotGeneral: stablehlo-legalize-dot-to-dot-general //----- //
// PY: stablehlo.dot_general

// ERR: error: --mlir-print-ir-tree-dir cannot be combined with --mlir-print-ir-before=<pass> / --mlir-print-ir-after=<pass>
