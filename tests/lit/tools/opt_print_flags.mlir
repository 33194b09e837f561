// mlir-opt's printing and verification flags that hlokit-opt takes as well.
// RUN: hlokit-opt --mlir-print-skip-regions %s | FileCheck %s --check-prefix=SKIP
// RUN: hlokit-opt --mlir-use-nameloc-as-prefix %s | FileCheck %s --check-prefix=NAMELOC
// RUN: hlokit-opt --mlir-print-debuginfo --mlir-print-local-scope %s | FileCheck %s --check-prefix=LOCAL
// RUN: hlokit-opt --mlir-print-debuginfo %s | FileCheck %s --check-prefix=ALIAS
// RUN: hlokit-opt --verify-each=false --mlir-disable-threading --mlir-print-assume-verified --canonicalize %s | FileCheck %s --check-prefix=NOVERIFY
// RUN: not hlokit-opt --verify-each=maybe %s 2>&1 | FileCheck %s --check-prefix=BADBOOL
// RUN: hlokit-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: hlokit-opt %S/Inputs/resource.mlir | FileCheck %s --check-prefix=BLOB
// RUN: hlokit-opt --mlir-elide-resource-strings-if-larger=4 %S/Inputs/resource.mlir | FileCheck %s --check-prefix=ELIDED
// RUN: hlokit-opt --mlir-elide-resource-strings-if-larger=0 %S/Inputs/resource.mlir | FileCheck %s --check-prefix=ELIDED

// SKIP: module {...}
// SKIP-NOT: stablehlo.add
// NAMELOC: %sum = stablehlo.add %a, %a
// LOCAL: stablehlo.add {{.*}} loc("sum")
// LOCAL-NOT: #loc
// ALIAS: #loc{{[0-9]*}} = loc("a")
// ALIAS: stablehlo.add {{.*}} loc(#loc
// NOVERIFY: func.func @f
// BADBOOL: hlokit-opt: error: argument --verify-each: 'maybe' is not a boolean (true or false)
// BLOB: blob1: "0x040000000000803F00000040"
// ELIDED: dense_resource<blob1>
// ELIDED-NOT: 0x040000000000803F00000040
// DIALECTS: Available Dialects: {{.*}}chlo, {{.*}}stablehlo, {{.*}}vhlo
func.func @f(%a: tensor<2xf32> loc("a")) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32> loc("sum")
  return %0 : tensor<2xf32>
}
