// RUN: hlokit-opt --stablehlo-expand-batch-norm --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-expand-batch-norm))' --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --stablehlo-expand-batch-norm='f16-in-f32=true' --split-input-file --verify-diagnostics %s | FileCheck %s --check-prefix=WIDE

// XLA's BatchNormExpander order: moments by reduce over every dimension but feature_index, then
// (x - mean) * rsqrt(var + eps) * scale + offset.
// CHECK-LABEL: func.func @training
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x5xf32>, %[[S:.*]]: tensor<3xf32>, %[[O:.*]]: tensor<3xf32>)
// CHECK: %[[N:.*]] = stablehlo.constant dense<2.000000e+01> : tensor<3xf32>
// CHECK: %[[SUM:.*]] = stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.add across dimensions = [0, 2]
// CHECK: %[[MEAN:.*]] = stablehlo.divide %[[SUM]], %[[N]] : tensor<3xf32>
// CHECK: %[[SQ:.*]] = stablehlo.multiply %[[X]], %[[X]] : tensor<4x3x5xf32>
// CHECK: stablehlo.reduce(%[[SQ]] init: %{{.*}}) applies stablehlo.add across dimensions = [0, 2]
// CHECK: %[[VAR:.*]] = stablehlo.subtract
// CHECK: stablehlo.broadcast_in_dim %[[VAR]], dims = [1] : (tensor<3xf32>) -> tensor<4x3x5xf32>
// CHECK: stablehlo.rsqrt
// CHECK: stablehlo.broadcast_in_dim %[[MEAN]], dims = [1]
// CHECK: stablehlo.broadcast_in_dim %[[S]], dims = [1]
// CHECK: stablehlo.broadcast_in_dim %[[O]], dims = [1]
// CHECK: %[[Y:.*]] = stablehlo.add
// CHECK: return %[[Y]], %[[MEAN]], %[[VAR]]
// CHECK-NOT: batch_norm
func.func @training(%x: tensor<4x3x5xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<4x3x5xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// Inference folds scale and shift per feature: x * (scale * rsqrt(var + eps)) + (offset - mean * that).
// CHECK-LABEL: func.func @inference
// CHECK: %[[EPS:.*]] = stablehlo.constant dense<1.000000e-03> : tensor<3xf32>
// CHECK: %[[VE:.*]] = stablehlo.add %arg4, %[[EPS]] : tensor<3xf32>
// CHECK: %[[R:.*]] = stablehlo.rsqrt %[[VE]]
// CHECK: %[[TS:.*]] = stablehlo.multiply %arg1, %[[R]]
// CHECK: %[[M:.*]] = stablehlo.multiply %arg3, %[[TS]]
// CHECK: %[[SH:.*]] = stablehlo.subtract %arg2, %[[M]]
// CHECK: %[[B1:.*]] = stablehlo.broadcast_in_dim %[[TS]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %[[P:.*]] = stablehlo.multiply %arg0, %[[B1]]
// CHECK: %[[B2:.*]] = stablehlo.broadcast_in_dim %[[SH]], dims = [1]
// CHECK: %[[Y:.*]] = stablehlo.add %[[P]], %[[B2]]
// CHECK: return %[[Y]]
func.func @inference(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// bf16 is computed in f32 and rounded back, as XLA CPU does; feature_index may be the last dimension.
// CHECK-LABEL: func.func @grad_bf16
// CHECK: stablehlo.convert %arg0 : (tensor<2x5x4xbf16>) -> tensor<2x5x4xf32>
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x5x4xf32>, tensor<f32>) -> tensor<4xf32>
// CHECK: stablehlo.divide {{.*}} : tensor<2x5x4xf32>
// CHECK: stablehlo.convert {{.*}} : (tensor<2x5x4xf32>) -> tensor<2x5x4xbf16>
// CHECK: stablehlo.convert {{.*}} : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK: stablehlo.convert {{.*}} : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK-NOT: batch_norm
func.func @grad_bf16(%x: tensor<2x5x4xbf16>, %s: tensor<4xbf16>, %m: tensor<4xbf16>, %v: tensor<4xbf16>, %g: tensor<2x5x4xbf16>) -> (tensor<2x5x4xbf16>, tensor<4xbf16>, tensor<4xbf16>) {
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-5 : f32, feature_index = 2 : i64} : (tensor<2x5x4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xbf16>, tensor<2x5x4xbf16>) -> (tensor<2x5x4xbf16>, tensor<4xbf16>, tensor<4xbf16>)
  return %0#0, %0#1, %0#2 : tensor<2x5x4xbf16>, tensor<4xbf16>, tensor<4xbf16>
}

// -----

// f16 stays f16 (XLA CPU's arithmetic), unless f16-in-f32=true.
// CHECK-LABEL: func.func @inference_f16
// CHECK-NOT: f32>
// CHECK: return
// WIDE-LABEL: func.func @inference_f16
// WIDE: stablehlo.convert %arg0 : (tensor<6x2xf16>) -> tensor<6x2xf32>
// WIDE: stablehlo.convert {{.*}} : (tensor<6x2xf32>) -> tensor<6x2xf16>
func.func @inference_f16(%x: tensor<6x2xf16>, %s: tensor<6xf16>, %o: tensor<6xf16>, %m: tensor<6xf16>, %v: tensor<6xf16>) -> tensor<6x2xf16> {
  %r = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 0 : i64} : (tensor<6x2xf16>, tensor<6xf16>, tensor<6xf16>, tensor<6xf16>, tensor<6xf16>) -> tensor<6x2xf16>
  return %r : tensor<6x2xf16>
}

// -----

func.func @dynamic(%x: tensor<?x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{'stablehlo.batch_norm_training' with a dynamic or unranked shape (tensor<?x3xf32>) cannot be expanded (static shapes only)}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0 : tensor<?x3xf32>
}
