// Dynamic shapes: broadcasting goes through get_dimension_size + dynamic_broadcast_in_dim (pure StableHLO,
// no shape dialect), and constants of elementwise expansions are broadcast to the runtime shape.
// RUN: hlokit-opt --chlo-legalize-to-stablehlo --split-input-file %s | FileCheck %s

// CHECK-LABEL: func.func @dyn_add
// CHECK: %[[D0:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
// CHECK: %[[SHAPE:.*]] = stablehlo.concatenate
// CHECK-SAME: -> tensor<2xi32>
// CHECK: %[[A:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %[[SHAPE]], dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
// CHECK: %[[B:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[SHAPE]], dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
// CHECK: stablehlo.add %[[A]], %[[B]] : tensor<?x4xf32>
// CHECK-NOT: chlo.
func.func @dyn_add(%a: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %0 = chlo.broadcast_add %a, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @dyn_erf
// CHECK: %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?xf64>) -> tensor<i32>
// CHECK: %[[S:.*]] = stablehlo.reshape %[[N]] : (tensor<i32>) -> tensor<1xi32>
// CHECK: %[[C:.*]] = stablehlo.constant dense<{{.*}}> : tensor<f64>
// CHECK: stablehlo.dynamic_broadcast_in_dim %[[C]], %[[S]], dims = [] : (tensor<f64>, tensor<1xi32>) -> tensor<?xf64>
// CHECK-NOT: chlo.
func.func @dyn_erf(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = chlo.erf %x : tensor<?xf64> -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

// CHECK-LABEL: func.func @dyn_constant_like
// CHECK: %[[C:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[N:.*]] = stablehlo.get_dimension_size %arg0, dim = 1
// CHECK: stablehlo.dynamic_broadcast_in_dim %[[C]], %{{.*}}, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<2x?xf32>
func.func @dyn_constant_like(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %0 = "chlo.constant_like"(%x) {value = 1.0 : f32} : (tensor<2x?xf32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
