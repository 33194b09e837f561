// Indexing maps of StableHLO ops beyond the examples of https://openxla.org/xla/indexing (MLIR input);
// their semantics are checked by brute force in tests/pytest/test_indexing_props.py.
// RUN: hlokit-translate --indexing-maps %s --split-input-file | FileCheck %s
// RUN: hlokit-translate --indexing-maps %s --split-input-file --direction=input-to-output | FileCheck %s --check-prefix=IO

// Scalar operands of clamp and select are read for every output element.
// CHECK-LABEL: %0 = stablehlo.clamp
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1) -> (d0, d1)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 2 (%arg2):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-LABEL: %1 = stablehlo.select
// CHECK-NEXT: output -> operand 0 (%arg3):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%0):
// CHECK-NEXT: (d0, d1) -> (d0, d1)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 2 (%arg1):
// CHECK-NEXT: (d0, d1) -> (d0, d1)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// IO-LABEL: %0 = stablehlo.clamp
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 2]
// IO-NEXT: s1 in [0, 3]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg1) -> output:
// IO-NEXT: (d0, d1) -> (d0, d1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: d1 in [0, 3]
// IO-EMPTY:
// IO-NEXT: operand 2 (%arg2) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 2]
// IO-NEXT: s1 in [0, 3]
// IO-EMPTY:
// IO-LABEL: %1 = stablehlo.select
// IO-NEXT: operand 0 (%arg3) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 2]
// IO-NEXT: s1 in [0, 3]
// IO-EMPTY:
// IO-NEXT: operand 1 (%0) -> output:
// IO-NEXT: (d0, d1) -> (d0, d1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: d1 in [0, 3]
// IO-EMPTY:
// IO-NEXT: operand 2 (%arg1) -> output:
// IO-NEXT: (d0, d1) -> (d0, d1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: d1 in [0, 3]
func.func @scalars(%lo: tensor<i32>, %x: tensor<3x4xi32>, %hi: tensor<i32>, %p: tensor<i1>) -> tensor<3x4xi32> {
  %clamp = stablehlo.clamp %lo, %x, %hi : (tensor<i32>, tensor<3x4xi32>, tensor<i32>) -> tensor<3x4xi32>
  %select = stablehlo.select %p, %clamp, %x : (tensor<i1>, tensor<3x4xi32>, tensor<3x4xi32>) -> tensor<3x4xi32>
  return %select : tensor<3x4xi32>
}

// -----

// Negative padding cuts the operand: the map's domain and constraints say which elements survive.
// CHECK-LABEL: %0 = stablehlo.pad
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1) -> ((d0 + 1) floordiv 2, (d1 - 1) floordiv 2)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [1, 7]
// CHECK-NEXT: d1 in [1, 3]
// CHECK-NEXT: (d0 + 1) mod 2 in [0, 0]
// CHECK-NEXT: (d1 - 1) mod 2 in [0, 0]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 7]
// CHECK-NEXT: d1 in [0, 3]
// IO-LABEL: %0 = stablehlo.pad
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0, d1) -> (d0 * 2 - 1, d1 * 2 + 1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [1, 4]
// IO-NEXT: d1 in [0, 1]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg1) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 7]
// IO-NEXT: s1 in [0, 3]
func.func @pad(%x: tensor<5x4xi32>, %v: tensor<i32>) -> tensor<8x4xi32> {
  %pad = stablehlo.pad %x, %v, low = [-1, 1], high = [0, -4], interior = [1, 1] : (tensor<5x4xi32>, tensor<i32>) -> tensor<8x4xi32>
  return %pad : tensor<8x4xi32>
}

// -----

// reduce_window with strides, padding, base and window dilation: the window map composed with the
// pad map of the padded, dilated operand.
// CHECK-LABEL: %0 = stablehlo.reduce_window
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1)[s0] -> (d0, d1 * 2 + s0 * 2)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 3]
// CHECK-NEXT: d1 in [0, 1]
// CHECK-NEXT: s0 in [0, 2]
// CHECK-NEXT: d1 + s0 in [0, 2]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg1):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 3]
// CHECK-NEXT: d1 in [0, 1]
// IO-LABEL: %0 = stablehlo.reduce_window
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0, d1)[s0] -> (d0, d1 floordiv 2 - s0)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 3]
// IO-NEXT: d1 in [0, 4]
// IO-NEXT: s0 in [0, 2]
// IO-NEXT: -(d1 floordiv 2) + s0 in [-1, 0]
// IO-NEXT: d1 mod 2 in [0, 0]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg1) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 3]
// IO-NEXT: s1 in [0, 1]
func.func @reduce_window(%x: tensor<4x6xi32>, %init: tensor<i32>) -> tensor<4x2xi32> {
  %rw = "stablehlo.reduce_window"(%x, %init) <{window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>, padding = dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>}> ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) : (tensor<4x6xi32>, tensor<i32>) -> tensor<4x2xi32>
  return %rw : tensor<4x2xi32>
}

// -----

// CHECK-LABEL: %0 = stablehlo.bitcast_convert
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1) -> (d0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 2]
// CHECK-NEXT: d1 in [0, 3]
// CHECK-EMPTY:
// CHECK-LABEL: %1 = stablehlo.bitcast_convert
// CHECK-NEXT: output -> operand 0 (%arg1):
// CHECK-NEXT: (d0)[s0] -> (d0, s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: s0 in [0, 3]
// IO-LABEL: %0 = stablehlo.bitcast_convert
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0)[s0] -> (d0, s0)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: s0 in [0, 3]
// IO-EMPTY:
// IO-LABEL: %1 = stablehlo.bitcast_convert
// IO-NEXT: operand 0 (%arg1) -> output:
// IO-NEXT: (d0, d1) -> (d0)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 1]
// IO-NEXT: d1 in [0, 3]
func.func @bitcast_convert(%x: tensor<3xi32>, %y: tensor<2x4xi8>) -> (tensor<3x4xi8>, tensor<2xf32>) {
  %narrow = stablehlo.bitcast_convert %x : (tensor<3xi32>) -> tensor<3x4xi8>
  %wide = stablehlo.bitcast_convert %y : (tensor<2x4xi8>) -> tensor<2xf32>
  return %narrow, %wide : tensor<3x4xi8>, tensor<2xf32>
}

// -----

// CHECK-LABEL: %0 = stablehlo.iota
// CHECK-NEXT: (no operands)
// CHECK-EMPTY:
// CHECK-LABEL: %1 = stablehlo.dot
// CHECK-NEXT: output -> operand 0 (%0):
// CHECK-NEXT: (d0)[s0] -> (s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 4]
// CHECK-NEXT: s0 in [0, 2]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%arg0):
// CHECK-NEXT: (d0)[s0] -> (s0, d0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 4]
// CHECK-NEXT: s0 in [0, 2]
// IO-LABEL: %0 = stablehlo.iota
// IO-NEXT: (no operands)
// IO-EMPTY:
// IO-LABEL: %1 = stablehlo.dot
// IO-NEXT: operand 0 (%0) -> output:
// IO-NEXT: (d0)[s0] -> (s0)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: s0 in [0, 4]
// IO-EMPTY:
// IO-NEXT: operand 1 (%arg0) -> output:
// IO-NEXT: (d0, d1) -> (d1)
// IO-NEXT: domain:
// IO-NEXT: d0 in [0, 2]
// IO-NEXT: d1 in [0, 4]
func.func @iota_dot(%x: tensor<3x5xf32>) -> tensor<5xf32> {
  %iota = stablehlo.iota dim = 0 : tensor<3xf32>
  %dot = stablehlo.dot %iota, %x : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
  return %dot : tensor<5xf32>
}

// -----

// A runtime offset read from a constant becomes that constant, clamped (7 -> 8 - 2 = 6).
// CHECK-LABEL: %c = stablehlo.constant
// CHECK-NEXT: (no operands)
// CHECK-EMPTY:
// CHECK-LABEL: %0 = stablehlo.dynamic_slice
// CHECK-NEXT: output -> operand 0 (%arg0):
// CHECK-NEXT: (d0, d1)[s0] -> (d0 + 6, d1 + s0)
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-NEXT: s0 in [0, 3]
// CHECK-NEXT: hlo: %arg1 = tensor<i32>
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 1 (%c):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: d1 in [0, 2]
// CHECK-EMPTY:
// CHECK-NEXT: output -> operand 2 (%arg1):
// CHECK-NEXT: (d0, d1) -> ()
// CHECK-NEXT: domain:
// CHECK-NEXT: d0 in [0, 1]
// CHECK-NEXT: d1 in [0, 2]
// IO-LABEL: %c = stablehlo.constant
// IO-NEXT: (no operands)
// IO-EMPTY:
// IO-LABEL: %0 = stablehlo.dynamic_slice
// IO-NEXT: operand 0 (%arg0) -> output:
// IO-NEXT: (d0, d1)[s0] -> (d0 - 6, d1 - s0)
// IO-NEXT: domain:
// IO-NEXT: d0 in [6, 7]
// IO-NEXT: d1 in [0, 5]
// IO-NEXT: s0 in [0, 3]
// IO-NEXT: hlo: %arg1 = tensor<i32>
// IO-NEXT: (d0, d1) -> ()
// IO-NEXT: d1 - s0 in [0, 2]
// IO-EMPTY:
// IO-NEXT: operand 1 (%c) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 1]
// IO-NEXT: s1 in [0, 2]
// IO-EMPTY:
// IO-NEXT: operand 2 (%arg1) -> output:
// IO-NEXT: ()[s0, s1] -> (s0, s1)
// IO-NEXT: domain:
// IO-NEXT: s0 in [0, 1]
// IO-NEXT: s1 in [0, 2]
func.func @constant_offset(%x: tensor<8x6xf32>, %i: tensor<i32>) -> tensor<2x3xf32> {
  %c = stablehlo.constant dense<7> : tensor<i32>
  %ds = stablehlo.dynamic_slice %x, %c, %i, sizes = [2, 3] : (tensor<8x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %ds : tensor<2x3xf32>
}
