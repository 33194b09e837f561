// hlokit-opt --refine-arguments: a jax.export program with a symbolic dimension 'b' (written by
// jax.export.export(jax.jit(lambda x, y: jnp.sin(x).sum(axis=1) + y)) with symbolic_shape("b, 4")) given
// concrete argument types, by every argument's type, NAME=TYPE pairs or an .npz of inputs; jax's shape
// assertion is checked (its own message, exit 1, -o not written).
// RUN: hlokit-opt %s --refine-arguments='tensor<3x4xf32>,tensor<f32>' | FileCheck %s
// RUN: hlokit-opt %s --refine-arguments='arg_0=tensor<3x4xf32>' | FileCheck %s
// RUN: %python -c "import numpy as np, sys; np.savez(sys.argv[1], arg_0=np.zeros((3, 4), np.float32))" %t.npz
// RUN: hlokit-opt %s --refine-arguments=%t.npz | FileCheck %s
// RUN: hlokit-opt %s --refine-arguments='tensor<3x4xf32>,tensor<f32>' | hlokit-translate --interpret --args='[dense<0.5> : tensor<3x4xf32>, dense<1.0> : tensor<f32>]' | FileCheck %s --check-prefix=EXEC
// RUN: rm -f %t.out
// RUN: not hlokit-opt %s --refine-arguments='tensor<0x4xf32>,tensor<f32>' -o %t.out 2>&1 | FileCheck %s --check-prefix=ASSERT
// RUN: not hlokit-opt %s --refine-arguments='tensor<3x4xf32>' -o %t.out 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not hlokit-opt %s --refine-arguments='tensor<3x4xf32>,tensor<f3>' -o %t.out 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not hlokit-opt %s --refine-arguments='tensor<3x5xf32>,tensor<f32>' -o %t.out 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: not test -e %t.out

// CHECK:      func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<f32>) -> (tensor<3xf32> {jax.result_info = "result"})
// CHECK-NOT:  shape_assertion
// CHECK-NOT:  tensor<?
// CHECK:      stablehlo.sine %arg0 : tensor<3x4xf32>
// CHECK:      return {{.*}} : tensor<3xf32>

// EXEC:      tensor<3xf32> {
// EXEC-NEXT:   [2.917702{{[0-9]*}}e+00, 2.917702{{[0-9]*}}e+00, 2.917702{{[0-9]*}}e+00]

// ASSERT: opt_refine_arguments.mlir:{{[0-9]+}}:5: error: Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'.
// COUNT: opt_refine_arguments.mlir: error: --refine-arguments: @main takes 2 argument(s), got 1 type(s); its arguments: arg_0: tensor<?x4xf32>, arg_1: tensor<f32>
// TYPE: opt_refine_arguments.mlir: error: --refine-arguments: 'tensor<f3>' (for arg_1) is not a type: expected non-function type at column 8
// FIT: opt_refine_arguments.mlir: error: --refine-arguments: arg_0: 'tensor<3x5xf32>' does not fit the argument's type tensor<?x4xf32>

module @jit_f attributes {jax.uses_shape_polymorphism = true, mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<?x4xf32>, %arg1: tensor<f32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0) {api_version = 2 : i32, error_message = "Input shapes do not match the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'. Using the following polymorphic shapes specifications: args[0].shape = (b, 4). Obtained dimension variables: 'b' = {0} from specification 'b' for dimension args[0].shape[0] (= {0}), . Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details.", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    %2 = call @_wrapped_jax_export_main(%0, %arg0, %arg1) : (tensor<i32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    return %2 : tensor<?xf32>
  }
  func.func private @_wrapped_jax_export_main(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>, %arg2: tensor<f32>) -> (tensor<?xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.sine %arg1 : tensor<?x4xf32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.dynamic_broadcast_in_dim %arg2, %2, dims = [] : (tensor<f32>, tensor<1xi32>) -> tensor<?xf32>
    %4 = stablehlo.add %1, %3 : tensor<?xf32>
    return %4 : tensor<?xf32>
  }
}
