// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// Data-movement ops through the tool: results printed as dense attributes.

// CHECK: dense<{{\[}}[-1, -1, -1, -1, -1], [-1, 0, -1, 0, -1], [-1, 1, -1, 2, -1], [-1, 3, -1, 4, -1], [-1, 5, -1, 6, -1], [-1, 0, -1, 0, -1], [-1, -1, -1, -1, -1]]> : tensor<7x5xi64>
func.func @main() -> tensor<7x5xi64> {
  %operand = stablehlo.constant dense<[[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0], [0, 5, 6, 0], [0, 0, 0, 0]]> : tensor<5x4xi64>
  %padding_value = stablehlo.constant dense<-1> : tensor<i64>
  %result = stablehlo.pad %operand, %padding_value, low = [1, -1], high = [1, -1], interior = [0, 1]
    : (tensor<5x4xi64>, tensor<i64>) -> tensor<7x5xi64>
  func.return %result : tensor<7x5xi64>
}

// -----

// Start indices are clamped into [0, dim - size]: (-1, 3) reads rows 0-1, columns 2-3.
// CHECK: dense<{{\[}}[2, 3], [6, 7]]> : tensor<2x2xi32>
// CHECK: dense<{{\[}}[0, 1, 9, 9], [4, 5, 9, 9], [8, 9, 10, 11], [12, 13, 14, 15]]> : tensor<4x4xi32>
func.func @main() -> (tensor<2x2xi32>, tensor<4x4xi32>) {
  %operand = stablehlo.iota dim = 0 : tensor<16xi32>
  %m = stablehlo.reshape %operand : (tensor<16xi32>) -> tensor<4x4xi32>
  %i = stablehlo.constant dense<-1> : tensor<i64>
  %j = stablehlo.constant dense<3> : tensor<i64>
  %s = stablehlo.dynamic_slice %m, %i, %j, sizes = [2, 2] : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  %nine = stablehlo.constant dense<9> : tensor<2x2xi32>
  %u = stablehlo.dynamic_update_slice %m, %nine, %i, %j : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>
  func.return %s, %u : tensor<2x2xi32>, tensor<4x4xi32>
}

// -----

// NaN payloads and signed zeros pass through data movement bit for bit.
// CHECK: dense<[2143289345, -2147483648, -4194305]> : tensor<3xi32>
func.func @main() -> tensor<3xi32> {
  %x = stablehlo.constant dense<[0xFFBFFFFF, 0x80000000, 0x7FC00001]> : tensor<3xf32>
  %r = stablehlo.reverse %x, dims = [0] : tensor<3xf32>
  %b = stablehlo.bitcast_convert %r : (tensor<3xf32>) -> tensor<3xi32>
  func.return %b : tensor<3xi32>
}

// -----

// CHECK: dense<{{\[}}[3, 2, 3], [1, 2, 1]]> : tensor<2x3xi64>
// CHECK: dense<{{\[}}[1, 2, 1], [3, 2, 3]]> : tensor<2x3xi64>
func.func @main() -> (tensor<2x3xi64>, tensor<2x3xi64>) {
  %input0 = stablehlo.constant dense<[[1, 2, 3], [3, 2, 1]]> : tensor<2x3xi64>
  %input1 = stablehlo.constant dense<[[3, 2, 1], [1, 2, 3]]> : tensor<2x3xi64>
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):
      %predicate = stablehlo.compare GT, %arg0, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %predicate : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  func.return %result0, %result1 : tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// jnp.take(x, [2, 0, 7], axis=0) with an out-of-range index (clamped to the last row).
// CHECK: dense<{{\[}}[4, 5], [0, 1], [6, 7]]> : tensor<3x2xi32>
func.func @main() -> tensor<3x2xi32> {
  %iota = stablehlo.iota dim = 0 : tensor<8xi32>
  %x = stablehlo.reshape %iota : (tensor<8xi32>) -> tensor<4x2xi32>
  %i = stablehlo.constant dense<[[2], [0], [7]]> : tensor<3x1xi32>
  %r = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>,
    slice_sizes = array<i64: 1, 2>, indices_are_sorted = false
  } : (tensor<4x2xi32>, tensor<3x1xi32>) -> tensor<3x2xi32>
  func.return %r : tensor<3x2xi32>
}
