// rng_bit_generator PHILOX with a tensor<3xui64> state -> tensor<512x513xui64> (StableHLO spec rng_bit_generator; bits as XLA CPU).
// Expanded by hlokit-opt --stablehlo-expand-rng-bit-generator (tests/pytest/test_expand_rng.py).
func.func @main(%state: tensor<3xui64>) -> (tensor<3xui64>, tensor<512x513xui64>) {
  %new_state, %bits = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<3xui64>) -> (tensor<3xui64>, tensor<512x513xui64>)
  return %new_state, %bits : tensor<3xui64>, tensor<512x513xui64>
}
