// rng_bit_generator THREE_FRY with a tensor<2xui64> state -> tensor<999x1001xf32> (StableHLO spec rng_bit_generator; bits as XLA CPU).
// Expanded by hlokit-opt --stablehlo-expand-rng-bit-generator (tests/pytest/test_expand_rng.py).
func.func @main(%state: tensor<2xui64>) -> (tensor<2xui64>, tensor<999x1001xf32>) {
  %new_state, %bits = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<999x1001xf32>)
  return %new_state, %bits : tensor<2xui64>, tensor<999x1001xf32>
}
