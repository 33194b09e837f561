// RUN: hlokit-opt %s --split-input-file --stablehlo-legalize-dot-to-dot-general | FileCheck %s
// RUN: hlokit-opt %s --split-input-file --stablehlo-legalize-dot-to-dot-general | FileCheck %s --check-prefix=NONE

// Every stablehlo.dot becomes a stablehlo.dot_general, in regions too.
// NONE-NOT: {{stablehlo.dot[^_]}}

// CHECK-LABEL: func.func @matvec
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
func.func @matvec(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @vecvec
// CHECK: stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0] : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
func.func @vecvec(%a: tensor<3xi32>, %b: tensor<3xi32>) -> tensor<i32> {
  %0 = stablehlo.dot %a, %b : (tensor<3xi32>, tensor<3xi32>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

// CHECK-LABEL: func.func @vecmat_in_region
// CHECK: stablehlo.while
// CHECK: stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [0] x [0] : (tensor<3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
func.func @vecmat_in_region(%v: tensor<3xf32>, %m: tensor<3x3xf32>) -> tensor<3xf32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c, %x = %v) : tensor<i32>, tensor<3xf32>
    cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %p = stablehlo.compare LT, %i, %lim : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %p : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %i, %one : tensor<i32>
      %y = stablehlo.dot %x, %m : (tensor<3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
      stablehlo.return %n, %y : tensor<i32>, tensor<3xf32>
    }
  func.return %r#1 : tensor<3xf32>
}
