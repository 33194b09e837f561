// batch_norm_inference on bf16[16, 28, 28, 32], feature_index = 3 (StableHLO spec batch_norm_inference).
// Expanded by hlokit-opt --stablehlo-expand-batch-norm (tests/pytest/test_expand_batch_norm.py).
func.func @main(%a0: tensor<16x28x28x32xbf16>, %a1: tensor<32xbf16>, %a2: tensor<32xbf16>, %a3: tensor<32xbf16>, %a4: tensor<32xbf16>) -> (tensor<16x28x28x32xbf16>) {
  %r = "stablehlo.batch_norm_inference"(%a0, %a1, %a2, %a3, %a4) {epsilon = 1.000000e-05 : f32, feature_index = 3 : i64} : (tensor<16x28x28x32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>, tensor<32xbf16>) -> (tensor<16x28x28x32xbf16>)
  return %r : tensor<16x28x28x32xbf16>
}
