// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// Reductions through the tool.

// Variadic reduce: argmax along dimension 1 (ties: the lowest index).
// CHECK: dense<[3.000000e+00, 7.000000e+00]> : tensor<2xf32>
// CHECK: dense<[1, 0]> : tensor<2xi32>
func.func @main() -> (tensor<2xf32>, tensor<2xi32>) {
  %x = stablehlo.constant dense<[[1.0, 3.0, 3.0], [7.0, -1.0, 7.0]]> : tensor<2x3xf32>
  %i = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %ninf), (%i init: %zero) across dimensions = [1]
      : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
    reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
      %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %tie = stablehlo.and %eq, %lt : tensor<i1>
      %take = stablehlo.or %gt, %tie : tensor<i1>
      %v = stablehlo.select %take, %a, %c : tensor<i1>, tensor<f32>
      %j = stablehlo.select %take, %b, %d : tensor<i1>, tensor<i32>
      stablehlo.return %v, %j : tensor<f32>, tensor<i32>
    }
  func.return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// Integer sums wrap modulo 2^8.
// CHECK: dense<44> : tensor<i8>
func.func @main() -> tensor<i8> {
  %x = stablehlo.constant dense<[100, 100, 100]> : tensor<3xi8>
  %z = stablehlo.constant dense<0> : tensor<i8>
  %r = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<3xi8>, tensor<i8>) -> tensor<i8>
  func.return %r : tensor<i8>
}

// -----

// 2x2 max pooling with stride 2.
// CHECK: dense<{{\[}}[5, 7], [13, 15]]> : tensor<2x2xi32>
func.func @main() -> tensor<2x2xi32> {
  %iota = stablehlo.iota dim = 0 : tensor<16xi32>
  %x = stablehlo.reshape %iota : (tensor<16xi32>) -> tensor<4x4xi32>
  %init = stablehlo.constant dense<-2147483648> : tensor<i32>
  %r = "stablehlo.reduce_window"(%x, %init) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %m = stablehlo.maximum %a, %b : tensor<i32>
      stablehlo.return %m : tensor<i32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>} : (tensor<4x4xi32>, tensor<i32>) -> tensor<2x2xi32>
  func.return %r : tensor<2x2xi32>
}

// -----

// CHECK: dense<{{\[}}[19, 22], [43, 50]]> : tensor<2x2xi32>
func.func @main() -> tensor<2x2xi32> {
  %a = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %r = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  func.return %r : tensor<2x2xi32>
}
