// RUN: hlokit-opt --stablehlo-expand-rng-bit-generator --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-expand-rng-bit-generator))' --split-input-file --verify-diagnostics %s | FileCheck %s

// THREE_FRY: key = state[0] split into 32-bit words, counters state[1] + iota; Threefry-2x32's key
// schedule parity 0x1BD11BDA (466688986) and first rotation 13; 32-bit words of a block go to
// neighbours along the split dimension (dimension 1 of 3x2); new state (key, counter + 3 blocks).
// CHECK-LABEL: func.func @three_fry_u32
// CHECK-SAME: (%[[S:.*]]: tensor<2xui64>)
// CHECK: %[[K:.*]] = stablehlo.slice %[[S]] [0:1]
// CHECK: stablehlo.iota dim = 0 : tensor<3xui64>
// CHECK: stablehlo.constant dense<466688986> : tensor<3xui32>
// CHECK: stablehlo.constant dense<13> : tensor<3xui32>
// CHECK: stablehlo.shift_left
// CHECK: stablehlo.constant dense<19> : tensor<3xui32>
// CHECK: stablehlo.shift_right_logical
// CHECK: %[[PAIR:.*]] = stablehlo.concatenate {{.*}}, dim = 2 : (tensor<3x1x1xui32>, tensor<3x1x1xui32>) -> tensor<3x1x2xui32>
// CHECK: %[[OUT:.*]] = stablehlo.reshape %[[PAIR]] : (tensor<3x1x2xui32>) -> tensor<3x2xui32>
// CHECK: %[[THREE:.*]] = stablehlo.constant dense<3> : tensor<ui64>
// CHECK: %[[NEXT:.*]] = stablehlo.add %{{.*}}, %[[THREE]] : tensor<ui64>
// CHECK: %[[NEW:.*]] = stablehlo.concatenate
// CHECK: return %[[NEW]], %[[OUT]]
// CHECK-NOT: rng_bit_generator
func.func @three_fry_u32(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui32>) {
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x2xui32>)
  return %0, %1 : tensor<2xui64>, tensor<3x2xui32>
}

// -----

// PHILOX with a 3-word state: 128-bit counters with a carry into the high word, 10 rounds of
// 32x32->64 multiplies by 0xD2511F53 (3528531795) and 0xCD9E8D57 (3449720151); four words per block
// (5 f32 -> 2 blocks, cut to 5), reinterpreted as f32; the new high word takes the carry.
// CHECK-LABEL: func.func @philox3_f32
// CHECK: stablehlo.compare LT, {{.*}} UNSIGNED : (tensor<2xui64>, tensor<2xui64>) -> tensor<2xi1>
// CHECK: stablehlo.constant dense<3528531795> : tensor<2xui64>
// CHECK: stablehlo.constant dense<3449720151> : tensor<2xui64>
// CHECK: stablehlo.concatenate {{.*}}, dim = 1 : (tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>) -> tensor<2x4xui32>
// CHECK: stablehlo.slice {{.*}} [0:5] : (tensor<8xui32>) -> tensor<5xui32>
// CHECK: %[[ST:.*]] = stablehlo.concatenate {{.*}} : (tensor<1xui64>, tensor<1xui64>, tensor<1xui64>) -> tensor<3xui64>
// CHECK: %[[F:.*]] = stablehlo.bitcast_convert {{.*}} : (tensor<5xui32>) -> tensor<5xf32>
// CHECK: return %[[ST]], %[[F]]
func.func @philox3_f32(%s: tensor<3xui64>) -> (tensor<3xui64>, tensor<5xf32>) {
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5xf32>)
  return %0, %1 : tensor<3xui64>, tensor<5xf32>
}

// -----

// DEFAULT is PHILOX on XLA CPU; 64-bit elements take two words each (w0 | w1 << 32, w2 | w3 << 32);
// i8 takes the low 8 bits of each word and reinterprets them.
// CHECK-LABEL: func.func @default_i64_i8
// CHECK: stablehlo.shift_left {{.*}} : tensor<2xui64>
// CHECK: stablehlo.concatenate {{.*}}, dim = 1 : (tensor<2x1xui64>, tensor<2x1xui64>) -> tensor<2x2xui64>
// CHECK: stablehlo.bitcast_convert {{.*}} : (tensor<2x2xui64>) -> tensor<2x2xi64>
// CHECK: stablehlo.convert {{.*}} : (tensor<7xui32>) -> tensor<7xui8>
// CHECK: stablehlo.bitcast_convert {{.*}} : (tensor<7xui8>) -> tensor<7xi8>
func.func @default_i64_i8(%s: tensor<2xui64>) -> (tensor<2x2xi64>, tensor<7xi8>) {
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xi64>)
  %2, %3 = "stablehlo.rng_bit_generator"(%0) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<7xi8>)
  return %1, %3 : tensor<2x2xi64>, tensor<7xi8>
}

// -----

// An empty result draws no block: the state is returned unchanged.
// CHECK-LABEL: func.func @empty
// CHECK-SAME: (%[[S:.*]]: tensor<2xui64>)
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<0> : tensor<0x3xui32>
// CHECK-NEXT: return %[[S]], %[[Z]]
func.func @empty(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<0x3xui32>) {
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<0x3xui32>)
  return %0, %1 : tensor<2xui64>, tensor<0x3xui32>
}

// -----

func.func @f6(%s: tensor<2xui64>) -> tensor<4xf6E2M3FN> {
  // expected-error @+1 {{'stablehlo.rng_bit_generator': rng_bit_generator of element type 'f6E2M3FN' (supported: integer and float types of 2, 4, 8, 16, 32 or 64 bits)}}
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xf6E2M3FN>)
  return %1 : tensor<4xf6E2M3FN>
}
