// batch_norm_training on f32[16, 32, 28, 28], feature_index = 1 (StableHLO spec batch_norm_training).
// Expanded by hlokit-opt --stablehlo-expand-batch-norm (tests/pytest/test_expand_batch_norm.py).
func.func @main(%a0: tensor<16x32x28x28xf32>, %a1: tensor<32xf32>, %a2: tensor<32xf32>) -> (tensor<16x32x28x28xf32>, tensor<32xf32>, tensor<32xf32>) {
  %r:3 = "stablehlo.batch_norm_training"(%a0, %a1, %a2) {epsilon = 1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<16x32x28x28xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<16x32x28x28xf32>, tensor<32xf32>, tensor<32xf32>)
  return %r#0, %r#1, %r#2 : tensor<16x32x28x28xf32>, tensor<32xf32>, tensor<32xf32>
}
