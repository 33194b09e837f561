// RUN: hlokit-opt --chlo-legalize-to-stablehlo --split-input-file --verify-diagnostics %s
// RUN: not hlokit-opt --chlo-legalize-to-stablehlo %S/Inputs/unranked.mlir 2>&1 | FileCheck %s --check-prefix=UNRANKED
// RUN: not hlokit-opt --chlo-legalize-to-stablehlo %S/Inputs/unranked.mlir -o %t.out; test ! -e %t.out

// UNRANKED: unranked.mlir:5:8: error: 'chlo.erf' on an unranked tensor (tensor<*xf32>) cannot be legalized: ranked tensors only

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{'chlo.erf' on an unranked tensor (tensor<*xf32>) cannot be legalized}}
  %0 = chlo.erf %x : tensor<*xf32> -> tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @dynamic_scan(%x: tensor<?xf32>, %c: tensor<f32>) -> tensor<?xf32> {
  // expected-error @+1 {{'chlo.scan' with a dynamic shape (tensor<?xf32>) is not supported}}
  %0:2 = chlo.scan(%x) inits(%c) dimension=0 {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s, %s : tensor<f32>, tensor<f32>
  } : (tensor<?xf32>, tensor<f32>) -> (tensor<?xf32>, tensor<f32>)
  return %0#0 : tensor<?xf32>
}

// -----

// The first failing op is reported; earlier supported ops are not half-rewritten.
// ragged_dot needs a static ragged dimension; the chlo.constant before it is not half-rewritten either.
func.func @ragged_dynamic(%l: tensor<4x?x3xf32>, %r: tensor<2x3x5xf32>, %g: tensor<2xi32>) -> (tensor<4x?x5xf32>, tensor<4xf32>) {
  %c = chlo.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{'chlo.ragged_dot' with a dynamic ragged dimension, group dimension or group_sizes shape is not supported (other dimensions may be dynamic)}}
  %0 = "chlo.ragged_dot"(%l, %r, %g) {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [1], rhs_group_dimensions = [0]>} : (tensor<4x?x3xf32>, tensor<2x3x5xf32>, tensor<2xi32>) -> tensor<4x?x5xf32>
  return %0, %c : tensor<4x?x5xf32>, tensor<4xf32>
}

// -----

func.func @top_k_complex(%y: tensor<4xcomplex<f32>>) -> tensor<2xi32> {
  // expected-error @+1 {{'chlo.top_k' on element type 'complex<f32>' is not supported}}
  %0:2 = chlo.top_k(%y, k = 2) : tensor<4xcomplex<f32>> -> (tensor<2xcomplex<f32>>, tensor<2xi32>)
  return %0#1 : tensor<2xi32>
}
