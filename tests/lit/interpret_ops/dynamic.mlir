// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// The spec's dynamic ops and jax's shape-polymorphic custom calls on concrete values: each result's shape is
// read from an operand at run time (the result types keep '?'); the printed type is the concrete one.

// dynamic_reshape: 6 elements to the shape [2, 3] read from %s.
// CHECK: dense<{{\[}}[0.000000e+00, 1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00, 5.000000e+00]]> : tensor<2x3xf32>
func.func @main() -> tensor<?x?xf32> {
  %x = stablehlo.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi32>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<6xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// dynamic_broadcast_in_dim: operand dimension 0 to result dimension 1 of [2, 3].
// CHECK: dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
func.func @main() -> tensor<?x?xi32> {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %s = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %r = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<3xi32>, tensor<2xi64>) -> tensor<?x?xi32>
  func.return %r : tensor<?x?xi32>
}

// -----

// real_dynamic_slice: start 1, limit 7, stride 2.
// CHECK: dense<[1, 3, 5]> : tensor<3xi32>
func.func @main() -> tensor<?xi32> {
  %x = stablehlo.iota dim = 0 : tensor<8xi32>
  %start = stablehlo.constant dense<1> : tensor<1xi32>
  %limit = stablehlo.constant dense<7> : tensor<1xi32>
  %stride = stablehlo.constant dense<2> : tensor<1xi32>
  %r = stablehlo.real_dynamic_slice %x, %start, %limit, %stride : (tensor<8xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32>
  func.return %r : tensor<?xi32>
}

// -----

// dynamic_iota along dimension 1 of the shape [2, 4].
// CHECK: dense<{{\[}}[0, 1, 2, 3], [0, 1, 2, 3]]> : tensor<2x4xi64>
func.func @main() -> tensor<?x?xi64> {
  %s = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  %r = stablehlo.dynamic_iota %s, dim = 1 : (tensor<2xi32>) -> tensor<?x?xi64>
  func.return %r : tensor<?x?xi64>
}

// -----

// dynamic_pad: low 2, high -1 (one element cut), interior 1.
// CHECK: dense<[-1, -1, 1, -1, 2, -1]> : tensor<6xi32>
func.func @main() -> tensor<?xi32> {
  %x = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %v = stablehlo.constant dense<-1> : tensor<i32>
  %lo = stablehlo.constant dense<2> : tensor<1xi32>
  %hi = stablehlo.constant dense<-1> : tensor<1xi32>
  %in = stablehlo.constant dense<1> : tensor<1xi32>
  %r = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<3xi32>, tensor<i32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32>
  func.return %r : tensor<?xi32>
}

// -----

// dynamic_gather: rows 2 and 0, slice sizes [1, 2] read from %sizes.
// CHECK: dense<{{\[}}[6, 7], [0, 1]]> : tensor<2x2xi32>
func.func @main() -> tensor<2x?xi32> {
  %i = stablehlo.iota dim = 0 : tensor<9xi32>
  %x = stablehlo.reshape %i : (tensor<9xi32>) -> tensor<3x3xi32>
  %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
  %sizes = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r = "stablehlo.dynamic_gather"(%x, %idx, %sizes) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>} : (tensor<3x3xi32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x?xi32>
  func.return %r : tensor<2x?xi32>
}

// -----

// dynamic_conv: a 1-D correlation with the kernel [1, 2, 4], padding (1, 0) read from %p.
// CHECK: dense<{{\[\[\[}}1.000000e+01], [1.700000e+01], [2.400000e+01]]]> : tensor<1x3x1xf32>
func.func @main() -> tensor<1x?x1xf32> {
  %x = stablehlo.constant dense<[[[1.0], [2.0], [3.0], [4.0]]]> : tensor<1x4x1xf32>
  %w = stablehlo.constant dense<[[[1.0]], [[2.0]], [[4.0]]]> : tensor<3x1x1xf32>
  %p = stablehlo.constant dense<[[1, 0]]> : tensor<1x2xi32>
  %r = "stablehlo.dynamic_conv"(%x, %w, %p) {dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, window_strides = array<i64: 1>, feature_group_count = 1 : i64, batch_group_count = 1 : i64} : (tensor<1x4x1xf32>, tensor<3x1x1xf32>, tensor<1x2xi32>) -> tensor<1x?x1xf32>
  func.return %r : tensor<1x?x1xf32>
}

// -----

// jax's stablehlo.dynamic_top_k: the 2 largest of each row (ties keep their order) and their indices.
// CHECK: dense<{{\[}}[5.000000e+00, 3.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK: dense<{{\[}}[1, 2], [0, 2]]> : tensor<2x2xi32>
func.func @main() -> (tensor<2x?xf32>, tensor<2x?xi32>) {
  %x = stablehlo.constant dense<[[1.0, 5.0, 3.0], [2.0, -1.0, 2.0]]> : tensor<2x3xf32>
  %k = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_top_k(%x, %k) {api_version = 2 : i32} : (tensor<2x3xf32>, tensor<i32>) -> (tensor<2x?xf32>, tensor<2x?xi32>)
  func.return %r#0, %r#1 : tensor<2x?xf32>, tensor<2x?xi32>
}

// -----

// jax's stablehlo.dynamic_reduce_window: a cumulative sum (window [3, 1], padding (2, 0) on dimension 0).
// CHECK: dense<{{\[}}[0.000000e+00, 1.000000e+00], [2.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00]]> : tensor<3x2xf32>
func.func @main() -> tensor<?x2xf32> {
  %x = stablehlo.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %dims = stablehlo.constant dense<[3, 1]> : tensor<2xi32>
  %ones = stablehlo.constant dense<1> : tensor<2xi32>
  %pad = stablehlo.constant dense<[[2, 0], [0, 0]]> : tensor<2x2xi32>
  %r = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%x, %zero, %dims, %ones, %ones, %ones, %pad) {api_version = 2 : i32, called_computations = [@add]} : (tensor<3x2xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x2xf32>
  func.return %r : tensor<?x2xf32>
}
func.func @add(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %s = stablehlo.add %a, %b : tensor<f32>
  func.return %s : tensor<f32>
}

// -----

// jax's stablehlo.dynamic_rng_bit_generator: the same bits as rng_bit_generator of the shape [2, 2].
// CHECK: [[BITS:dense<.*>]] : tensor<2x2xui32>
// CHECK-NEXT: [[BITS]] : tensor<2x2xui32>
func.func @main() -> (tensor<?x?xui32>, tensor<2x2xui32>) {
  %key = stablehlo.constant dense<[42, 7]> : tensor<2xui64>
  %shape = stablehlo.constant dense<[2, 2]> : tensor<2xi32>
  %s:2 = stablehlo.custom_call @stablehlo.dynamic_rng_bit_generator(%key, %shape) {api_version = 2 : i32, rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>, tensor<2xi32>) -> (tensor<2xui64>, tensor<?x?xui32>)
  %t:2 = stablehlo.rng_bit_generator %key, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  func.return %s#1, %t#1 : tensor<?x?xui32>, tensor<2x2xui32>
}

// -----

// jax's stablehlo.dynamic_approx_top_k (k = 2 read from an operand): exact top-k is a valid answer.
// CHECK: dense<[9.000000e+00, 7.000000e+00]> : tensor<2xf32>
// CHECK: dense<[3, 1]> : tensor<2xi32>
func.func @main() -> (tensor<?xf32>, tensor<?xi32>) {
  %x = stablehlo.constant dense<[1.0, 7.0, 3.0, 9.0, 2.0]> : tensor<5xf32>
  %iota = stablehlo.iota dim = 0 : tensor<5xi32>
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %minus1 = stablehlo.constant dense<-1> : tensor<i32>
  %k = stablehlo.constant dense<2> : tensor<i32>
  %r:2 = stablehlo.custom_call @stablehlo.dynamic_approx_top_k(%x, %iota, %init, %minus1, %k) {called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.95 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64}} : (tensor<5xf32>, tensor<5xi32>, tensor<f32>, tensor<i32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
  func.return %r#0, %r#1 : tensor<?xf32>, tensor<?xi32>
}
func.func @gt(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
  %r = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  func.return %r : tensor<i1>
}
