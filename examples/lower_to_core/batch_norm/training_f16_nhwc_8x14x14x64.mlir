// batch_norm_training on f16[8, 14, 14, 64], feature_index = 3 (StableHLO spec batch_norm_training).
// Expanded by hlokit-opt --stablehlo-expand-batch-norm (tests/pytest/test_expand_batch_norm.py).
func.func @main(%a0: tensor<8x14x14x64xf16>, %a1: tensor<64xf16>, %a2: tensor<64xf16>) -> (tensor<8x14x14x64xf16>, tensor<64xf16>, tensor<64xf16>) {
  %r:3 = "stablehlo.batch_norm_training"(%a0, %a1, %a2) {epsilon = 1.000000e-05 : f32, feature_index = 3 : i64} : (tensor<8x14x14x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<8x14x14x64xf16>, tensor<64xf16>, tensor<64xf16>)
  return %r#0, %r#1, %r#2 : tensor<8x14x14x64xf16>, tensor<64xf16>, tensor<64xf16>
}
