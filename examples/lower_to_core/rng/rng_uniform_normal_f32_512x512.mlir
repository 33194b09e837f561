// rng UNIFORM [-1, 1) and NORMAL (mean 0, deviation 1) on f32[512, 512] (StableHLO spec rng; XLA CPU's expansion).
// Expanded by hlokit-opt --stablehlo-expand-rng --stablehlo-expand-rng-bit-generator (tests/pytest/test_expand_rng.py).
func.func @main() -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  %lo = stablehlo.constant dense<-1.0> : tensor<f32>
  %hi = stablehlo.constant dense<1.0> : tensor<f32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %shape = stablehlo.constant dense<[512, 512]> : tensor<2xi64>
  %u = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<512x512xf32>
  %n = "stablehlo.rng"(%zero, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution NORMAL>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<512x512xf32>
  return %u, %n : tensor<512x512xf32>, tensor<512x512xf32>
}
