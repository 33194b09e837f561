// rng UNIFORM integers in [-1000, 1000) on i32[1000, 1000] (StableHLO spec rng; XLA CPU's expansion).
// Expanded by hlokit-opt --stablehlo-expand-rng --stablehlo-expand-rng-bit-generator (tests/pytest/test_expand_rng.py).
func.func @main() -> tensor<1000x1000xi32> {
  %lo = stablehlo.constant dense<-1000> : tensor<i32>
  %hi = stablehlo.constant dense<1000> : tensor<i32>
  %shape = stablehlo.constant dense<[1000, 1000]> : tensor<2xi64>
  %u = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<1000x1000xi32>
  return %u : tensor<1000x1000xi32>
}
