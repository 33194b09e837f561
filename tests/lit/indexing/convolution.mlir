// convolution: lhs through the padded, lhs-dilated input; rhs at the window positions that meet the
// operand (not padding); feature groups.
// RUN: hlokit-translate --indexing-maps %s --split-input-file | FileCheck %s
// RUN: hlokit-translate --indexing-maps %s --split-input-file --direction=input-to-output | FileCheck %s --check-prefix=IO

// CHECK-LABEL: %0 = stablehlo.convolution
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1, d2)[s0] -> (d0, s0, d2)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 0]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-NEXT: d2 in [0, 4]
// CHECK-NEXT: s0 in [0, 1]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1, d2)[s0, s1] -> (d1, s1, s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 0]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-NEXT: d2 in [0, 4]
// CHECK-NEXT: s0 in [1, 1]
// CHECK-NEXT: s1 in [0, 1]
// IO-LABEL: %0 = stablehlo.convolution
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0, d1, d2)[s0] -> (d0, s0, d2)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 0]
// IO-NEXT: d1 in [0, 1]
// IO-NEXT: d2 in [0, 4]
// IO-NEXT: s0 in [0, 2]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg1) -> output:
// IO-NEXT: (d0, d1, d2)[s0, s1] -> (s0, d0, s1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: d1 in [0, 1]
// IO-NEXT: d2 in [1, 1]
// IO-NEXT: s0 in [0, 0]
// IO-NEXT: s1 in [0, 4]
func.func @conv(%lhs: tensor<1x2x5xi32>, %rhs: tensor<3x2x2xi32>) -> tensor<1x3x5xi32> {
  %conv = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [2], pad = [[1, 1]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x5xi32>, tensor<3x2x2xi32>) -> tensor<1x3x5xi32>
  return %conv : tensor<1x3x5xi32>
}

// -----

// Feature groups: output feature o reads the input features of its group, (o floordiv 2) * 2 + s1.
// CHECK-LABEL: %0 = stablehlo.convolution
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1, d2)[s0, s1] -> (d0, (d1 floordiv 2) * 2 + s1, d2 + s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 0]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-NEXT: d2 in [0, 3]
// CHECK-NEXT: s0 in [0, 1]
// CHECK-NEXT: s1 in [0, 1]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1, d2)[s0, s1] -> (d1, s1, s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 0]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-NEXT: d2 in [0, 3]
// CHECK-NEXT: s0 in [0, 1]
// CHECK-NEXT: s1 in [0, 1]
// IO-LABEL: %0 = stablehlo.convolution
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0, d1, d2)[s0, s1] -> (d0, (d1 floordiv 2) * 2 + s0, d2 - s1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 0]
// IO-NEXT: d1 in [0, 3]
// IO-NEXT: d2 in [0, 4]
// IO-NEXT: s0 in [0, 1]
// IO-NEXT: s1 in [0, 1]
// IO-NEXT: d2 - s1 in [0, 3]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg1) -> output:
// IO-NEXT: (d0, d1, d2)[s0, s1] -> (s0, d0, -d2 + s1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 3]
// IO-NEXT: d1 in [0, 1]
// IO-NEXT: d2 in [0, 1]
// IO-NEXT: s0 in [0, 0]
// IO-NEXT: s1 in [0, 4]
// IO-NEXT: d2 - s1 in [-3, 0]
func.func @groups(%lhs: tensor<1x4x5xi32>, %rhs: tensor<4x2x2xi32>) -> tensor<1x4x4xi32> {
  %conv = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x5xi32>, tensor<4x2x2xi32>) -> tensor<1x4x4xi32>
  return %conv : tensor<1x4x4xi32>
}
