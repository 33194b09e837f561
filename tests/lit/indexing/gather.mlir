// gather beyond the simplified form of https://openxla.org/xla/indexing (section "Gather"): collapsed
// dims, batching dims, index_vector_dim not last. The operand -> output direction would invert runtime
// values: refused with a located error.
// RUN: hlokit-translate --indexing-maps %s | FileCheck %s
// RUN: not hlokit-translate --indexing-maps %s --direction=input-to-output 2>&1 | FileCheck %s --check-prefix=IO
// IO: gather.mlir:27:8: error: no input-to-output indexing map for the operand of 'stablehlo.gather'

// CHECK-LABEL: %0 = stablehlo.gather
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1, d2)[s0] -> (d0, s0, d2)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-NEXT: d2 in [0, 3]
// CHECK-NEXT: s0 in [0, 4]
// CHECK-NEXT: hlo: %arg1 = tensor<1x2x3xi32>
// CHECK-NEXT: (d0, d1, d2) -> (0, d0, d1)
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1, d2)[s0] -> (s0, d0, d1)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-NEXT: d2 in [0, 3]
// CHECK-NEXT: s0 in [0, 0]
func.func @gather(%operand: tensor<2x5x6xf32>, %indices: tensor<1x2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.gather"(%operand, %indices) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], start_index_map = [1], index_vector_dim = 0>, slice_sizes = array<i64: 1, 1, 4>}> : (tensor<2x5x6xf32>, tensor<1x2x3xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
