// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// rng_bit_generator through the tool; the expected bits are XLA CPU's (jaxlib 0.10.2) for the same
// programs (see docs/rng.md).

// THREE_FRY: 5 x ui32 from two blocks per pair along the split dimension; the counter advances by 3.
// CHECK: dense<[1, 5]> : tensor<2xui64>
// CHECK: dense<[43444564, 2150618427, 3979645651, 3745730563, 1672743891]> : tensor<5xui32>
func.func @main() -> (tensor<2xui64>, tensor<5xui32>) {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui32>)
  func.return %0, %1 : tensor<2xui64>, tensor<5xui32>
}

// -----

// PHILOX with a u64[2] state (DEFAULT is PHILOX on XLA CPU): two 4-word blocks.
// CHECK: dense<[1, 4]> : tensor<2xui64>
// CHECK: dense<[2100602697, 2847456232, 2074354647, 800269529, 1828267006]> : tensor<5xui32>
func.func @main() -> (tensor<2xui64>, tensor<5xui32>) {
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<5xui32>)
  func.return %0, %1 : tensor<2xui64>, tensor<5xui32>
}

// -----

// PHILOX with a u64[3] state (key, counter low, counter high).
// CHECK: dense<[1, 4, 3]> : tensor<3xui64>
// CHECK: dense<[4031113034, 1366700262, 495645701, 3051723414, 89414891]> : tensor<5xui32>
func.func @main() -> (tensor<3xui64>, tensor<5xui32>) {
  %s = stablehlo.constant dense<[1, 2, 3]> : tensor<3xui64>
  %0, %1 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<5xui32>)
  func.return %0, %1 : tensor<3xui64>, tensor<5xui32>
}
