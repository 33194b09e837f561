// batch_norm_grad on f64[64, 256], feature_index = 1 (StableHLO spec batch_norm_grad).
// Expanded by hlokit-opt --stablehlo-expand-batch-norm (tests/pytest/test_expand_batch_norm.py).
func.func @main(%a0: tensor<64x256xf64>, %a1: tensor<256xf64>, %a2: tensor<256xf64>, %a3: tensor<256xf64>, %a4: tensor<64x256xf64>) -> (tensor<64x256xf64>, tensor<256xf64>, tensor<256xf64>) {
  %r:3 = "stablehlo.batch_norm_grad"(%a0, %a1, %a2, %a3, %a4) {epsilon = 1.000000e-05 : f32, feature_index = 1 : i64} : (tensor<64x256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<256xf64>, tensor<64x256xf64>) -> (tensor<64x256xf64>, tensor<256xf64>, tensor<256xf64>)
  return %r#0, %r#1, %r#2 : tensor<64x256xf64>, tensor<256xf64>, tensor<256xf64>
}
