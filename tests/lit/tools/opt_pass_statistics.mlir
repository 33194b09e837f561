// --mlir-pass-statistics: MLIR's statistics report; Python passes report their counters (a template pass:
// ops rewritten, templates built / reused). jaxlib's MLIR is built without LLVM_ENABLE_STATS, so C++
// passes list nothing, as with jaxlib's own PassManager.enable_statistics.
// RUN: hlokit-opt %s --pass-pipeline='builtin.module(chlo-legalize-to-stablehlo,func.func(cse))' --mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: ===-------------------------------------------------------------------------===
// CHECK-NEXT: ... Pass statistics report ...
// CHECK-NEXT: ===-------------------------------------------------------------------------===
// CHECK-NEXT: ChloLegalizeToStablehlo
// CHECK-NEXT: (S) {{ *}}{{[0-9]+}} num-ops-created      - Number of operations created (by op name, before vs after)
// CHECK-NEXT: (S) {{ *}}2 num-ops-erased       - Number of operations erased (by op name, before vs after)
// CHECK-NEXT: (S) {{ *}}2 num-ops-rewritten    - Number of operations rewritten by a template
// CHECK-NEXT: (S) {{ *}}1 num-templates-built  - Number of templates built (template cache misses)
// CHECK-NEXT: (S) {{ *}}1 num-templates-reused - Number of rewrites that reused a cached template

func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
  %1 = chlo.erf %b : tensor<4xf32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
