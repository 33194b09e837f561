// RUN: hlokit-opt --stablehlo-expand-rng --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(stablehlo-expand-rng)' --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --stablehlo-expand-rng --stablehlo-expand-rng-bit-generator --split-input-file --verify-diagnostics %s | FileCheck %s --check-prefix=FULL

// The i-th rng op of a module gets XLA CPU's first-module key mt19937_64(42)[i] ^ mt19937_64(8)[i]
// and the counter 0x7012395 (117515157) XLA CPU's per-executable state starts at; PHILOX bits.
// UNIFORM f32: the top 23 bits times 2^-23, times (b - a), plus a.
// CHECK-LABEL: func.func @uniform_f32
// CHECK-SAME: (%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %{{.*}}: tensor<2xi64>)
// CHECK: %[[ST:.*]] = stablehlo.constant dense<[13448155576104175439, 117515157, 0]> : tensor<3xui64>
// CHECK: %{{.*}}, %[[BITS:.*]] = stablehlo.rng_bit_generator %[[ST]], algorithm = PHILOX : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x3xui32>)
// CHECK: %[[NINE:.*]] = stablehlo.constant dense<9> : tensor<2x3xui32>
// CHECK: %[[M:.*]] = stablehlo.shift_right_logical %[[BITS]], %[[NINE]]
// CHECK: %[[F:.*]] = stablehlo.convert %[[M]] : (tensor<2x3xui32>) -> tensor<2x3xf32>
// CHECK: stablehlo.constant dense<1.1920929E-7> : tensor<2x3xf32>
// CHECK: %[[R:.*]] = stablehlo.subtract %[[B]], %[[A]] : tensor<f32>
// CHECK: stablehlo.broadcast_in_dim %[[R]], dims = []
// CHECK: stablehlo.broadcast_in_dim %[[A]], dims = []
// CHECK: %[[U:.*]] = stablehlo.add
// CHECK: return %[[U]]
// FULL-LABEL: func.func @uniform_f32
// FULL-NOT: stablehlo.rng
// FULL: return
func.func @uniform_f32(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<2xi64>) -> tensor<2x3xf32> {
  %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// The second rng op of a module gets the second key; integers: bits mod (b - a) (a zero range keeps
// the bits), a + (d >> 1) + (d - (d >> 1)); i8 is computed at 32 bits and converted back.
// CHECK-LABEL: func.func @uniform_ints
// CHECK: stablehlo.constant dense<[13448155576104175439, 117515157, 0]> : tensor<3xui64>
// CHECK: stablehlo.constant dense<[5296180084612001234, 117515157, 0]> : tensor<3xui64>
// CHECK: stablehlo.rng_bit_generator {{.*}} -> (tensor<3xui64>, tensor<4xui32>)
// CHECK: stablehlo.convert %{{.*}} : (tensor<i8>) -> tensor<i32>
// CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<i32>) -> tensor<ui32>
// CHECK: stablehlo.compare EQ
// CHECK: stablehlo.remainder
// CHECK: stablehlo.shift_right_logical
// CHECK: stablehlo.bitcast_convert %{{.*}} : (tensor<4xui32>) -> tensor<4xi32>
// CHECK: stablehlo.convert %{{.*}} : (tensor<4xi32>) -> tensor<4xi8>
func.func @uniform_ints(%a: tensor<ui64>, %b: tensor<ui64>, %c: tensor<i8>, %d: tensor<i8>) -> (tensor<3xui64>, tensor<4xi8>) {
  %s1 = stablehlo.constant dense<[3]> : tensor<1xi64>
  %s2 = stablehlo.constant dense<[4]> : tensor<1xi64>
  %0 = "stablehlo.rng"(%a, %b, %s1) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<ui64>, tensor<ui64>, tensor<1xi64>) -> tensor<3xui64>
  %1 = "stablehlo.rng"(%c, %d, %s2) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i8>, tensor<i8>, tensor<1xi64>) -> tensor<4xi8>
  return %0, %1 : tensor<3xui64>, tensor<4xi8>
}

// -----

// NORMAL: uniform pairs over the split dimension rounded up to even (3x5 -> 3x6), Box-Muller with
// u1 = max(x0, 1e-7), then a + b z; f16 is computed in f32.
// CHECK-LABEL: func.func @normal_f16
// CHECK: stablehlo.rng_bit_generator {{.*}} -> (tensor<3xui64>, tensor<3x6xui32>)
// CHECK: stablehlo.reshape {{.*}} : (tensor<3x6xf32>) -> tensor<3x3x2xf32>
// CHECK: stablehlo.constant dense<1.000000e-07> : tensor<3x3xf32>
// CHECK: stablehlo.maximum
// CHECK: stablehlo.log
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.sine
// CHECK: stablehlo.cosine
// CHECK: stablehlo.slice {{.*}} [0:3, 0:5] : (tensor<3x6xf32>) -> tensor<3x5xf32>
// CHECK: stablehlo.convert {{.*}} : (tensor<3x5xf32>) -> tensor<3x5xf16>
func.func @normal_f16(%a: tensor<f16>, %b: tensor<f16>) -> tensor<3x5xf16> {
  %s = stablehlo.constant dense<[3, 5]> : tensor<2xi64>
  %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f16>, tensor<f16>, tensor<2xi64>) -> tensor<3x5xf16>
  return %0 : tensor<3x5xf16>
}

// -----

func.func @dynamic(%a: tensor<f32>, %b: tensor<f32>, %s: tensor<2xi64>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'stablehlo.rng' with a dynamic or unranked shape (tensor<?x3xf32>) cannot be expanded (static shapes only)}}
  %0 = "stablehlo.rng"(%a, %b, %s) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
