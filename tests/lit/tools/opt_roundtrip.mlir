// RUN: hlokit-opt %s | hlokit-opt | FileCheck %s
// RUN: hlokit-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: hlokit-opt %s --mlir-print-op-generic | hlokit-opt | FileCheck %s
// RUN: hlokit-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: hlokit-opt %s --emit-bytecode | hlokit-opt | FileCheck %s
// RUN: cat %s | hlokit-opt - | FileCheck %s

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0]
// CHECK: %[[E:.*]] = chlo.erfc %[[T]]
// CHECK: return %[[E]]
// GENERIC: "func.func"()
// GENERIC: "stablehlo.transpose"(%arg0) <{permutation = array<i64: 1, 0>}>
// GENERIC: "chlo.erfc"
// LOC-DAG: = loc("{{.*}}opt_roundtrip.mlir":19:8)
// LOC-DAG: = loc("{{.*}}opt_roundtrip.mlir":20:8)
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = chlo.erfc %0 : tensor<3x2xf32> -> tensor<3x2xf32>
  func.return %1 : tensor<3x2xf32>
}
