// hlokit's Python shape-legalize-to-stablehlo (it replaces jaxlib's C++ pass of the same flag): shape-dialect,
// tensor and index computations become StableHLO ops on i32 tensors; refused cases keep the function as it is.
// RUN: hlokit-opt --shape-legalize-to-stablehlo --split-input-file --verify-diagnostics %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(shape-legalize-to-stablehlo))' %examples/lower_to_core/shape/broadcast_chain.mlir | FileCheck %s --check-prefix=PIPE

// The constraint and the assuming region of CHLO's dynamic broadcasting disappear (jaxlib's C++ pass refuses
// shape.cstr_broadcastable); the broadcast shape is select(a == 1, b, a) per dimension.
// PIPE-LABEL: func.func @main
// PIPE-NOT: shape.
// PIPE: stablehlo.get_dimension_size %arg0, dim = 0
// PIPE: %[[EQ:.*]] = stablehlo.compare EQ
// PIPE: %[[BCAST:.*]] = stablehlo.select %[[EQ]]
// PIPE: stablehlo.dynamic_broadcast_in_dim %arg0, %[[BCAST]], dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// PIPE-NOT: shape.
// PIPE-NOT: unrealized_conversion_cast

// RUN: hlokit-opt --shape-legalize-to-stablehlo=assertions=true %examples/lower_to_core/shape/broadcast_chain.mlir | FileCheck %s --check-prefix=ASSERT
// With assertions=true each constraint becomes JAX's shape_assertion custom call on an i1 computed from the shapes.
// ASSERT: %[[OK:.*]] = stablehlo.and
// ASSERT: stablehlo.custom_call @shape_assertion(%[[OK]]) {api_version = 2 : i32, error_message = "shape.cstr_broadcastable: the shapes are not broadcastable", has_side_effect = true} : (tensor<i1>) -> ()
// ASSERT-NOT: = shape.

// CHECK-LABEL: func.func @broadcast_under_constraint
// CHECK-NOT: shape.
// CHECK: %[[D0:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
// CHECK: %[[D0R:.*]] = stablehlo.reshape %[[D0]] : (tensor<i32>) -> tensor<1xi32>
// CHECK: %[[C4:.*]] = stablehlo.constant dense<4> : tensor<1xi32>
// CHECK: %[[SX:.*]] = stablehlo.concatenate %[[D0R]], %[[C4]], dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
// CHECK: %[[ONES:.*]] = stablehlo.constant dense<1> : tensor<1xi32>
// CHECK: %[[SY:.*]] = stablehlo.concatenate %[[ONES]], %{{.*}}, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
// CHECK: %[[EQ:.*]] = stablehlo.compare EQ, %[[SX]], %{{.*}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
// CHECK: %[[S:.*]] = stablehlo.select %[[EQ]], %[[SY]], %[[SX]] : tensor<2xi1>, tensor<2xi32>
// CHECK: %[[BX:.*]] = stablehlo.dynamic_broadcast_in_dim %arg0, %[[S]], dims = [0, 1] : (tensor<?x4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
// CHECK: %[[BY:.*]] = stablehlo.dynamic_broadcast_in_dim %arg1, %[[S]], dims = [1] : (tensor<4xf32>, tensor<2xi32>) -> tensor<?x4xf32>
// CHECK: %[[R:.*]] = stablehlo.subtract %[[BX]], %[[BY]] : tensor<?x4xf32>
// CHECK: return %[[R]] : tensor<?x4xf32>
func.func @broadcast_under_constraint(%x: tensor<?x4xf32>, %y: tensor<4xf32>) -> tensor<?x4xf32> {
  %sx = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %sy = shape.shape_of %y : tensor<4xf32> -> tensor<1xindex>
  %w = shape.cstr_broadcastable %sx, %sy : tensor<2xindex>, tensor<1xindex>
  %r = shape.assuming %w -> (tensor<?x4xf32>) {
    %s = shape.broadcast %sx, %sy : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
    %bx = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %by = stablehlo.dynamic_broadcast_in_dim %y, %s, dims = [1] : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
    %d = stablehlo.subtract %bx, %by : tensor<?x4xf32>
    shape.assuming_yield %d : tensor<?x4xf32>
  }
  return %r : tensor<?x4xf32>
}

// -----

// Function arguments and results of index types are bridged with unrealized_conversion_cast.
// CHECK-LABEL: func.func @size_product
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<3xindex> to tensor<3xi32>
// CHECK: %[[ACC:.*]] = stablehlo.constant dense<1> : tensor<i32>
// CHECK: %[[E0:.*]] = stablehlo.slice %[[A]] [0:1] : (tensor<3xi32>) -> tensor<1xi32>
// CHECK: %[[S0:.*]] = stablehlo.reshape %[[E0]] : (tensor<1xi32>) -> tensor<i32>
// CHECK: %[[P0:.*]] = stablehlo.multiply %[[ACC]], %[[S0]] : tensor<i32>
// CHECK: stablehlo.slice %[[A]] [1:2]
// CHECK: stablehlo.slice %[[A]] [2:3]
// CHECK: %[[P:.*]] = stablehlo.multiply %{{.*}}, %{{.*}} : tensor<i32>
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %[[P]] : tensor<i32> to index
// CHECK: return %[[R]] : index
func.func @size_product(%s: tensor<3xindex>) -> index {
  %n = shape.num_elements %s : tensor<3xindex> -> index
  return %n : index
}

// -----

// A !shape.shape made in the function has a known rank; a !shape.size result is a 0-d tensor.
// CHECK-LABEL: func.func @shape_typed
// CHECK: %[[C2:.*]] = stablehlo.constant dense<2> : tensor<1xi32>
// CHECK: %[[D1:.*]] = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<2x?xf32>) -> tensor<i32>
// CHECK: %[[D1R:.*]] = stablehlo.reshape %[[D1]] : (tensor<i32>) -> tensor<1xi32>
// CHECK: %[[S:.*]] = stablehlo.concatenate %[[C2]], %[[D1R]], dim = 0
// CHECK: %[[E:.*]] = stablehlo.slice %[[S]] [1:2] : (tensor<2xi32>) -> tensor<1xi32>
// CHECK: %[[X:.*]] = stablehlo.reshape %[[E]] : (tensor<1xi32>) -> tensor<i32>
// CHECK: %[[R:.*]] = builtin.unrealized_conversion_cast %[[X]] : tensor<i32> to index
// CHECK: return %[[R]] : index
func.func @shape_typed(%x: tensor<2x?xf32>) -> index {
  %c1 = shape.const_size 1
  %s = shape.shape_of %x : tensor<2x?xf32> -> !shape.shape
  %e = shape.get_extent %s, %c1 : !shape.shape, !shape.size -> !shape.size
  %i = shape.size_to_index %e : !shape.size
  return %i : index
}

// -----

// A !shape.size or !shape.shape result used by an op the pass does not lower has no StableHLO form:
// the op fails as upstream's conversion fails it, and nothing is rewritten.
func.func @shape_typed_result_returned(%x: tensor<2x?xf32>) -> !shape.size {
  %c1 = shape.const_size 1
  %s = shape.shape_of %x : tensor<2x?xf32> -> !shape.shape
  // expected-error @+1 {{failed to legalize operation 'shape.get_extent' that was explicitly marked illegal: its result #0 of type !shape.size is used by 'func.return'}}
  %e = shape.get_extent %s, %c1 : !shape.shape, !shape.size -> !shape.size
  return %e : !shape.size
}

// -----

func.func @num_elements_to_size(%arg0: tensor<2xindex>) -> !shape.size {
  // expected-error @+1 {{failed to legalize operation 'shape.num_elements' that was explicitly marked illegal}}
  %0 = shape.num_elements %arg0 : tensor<2xindex> -> !shape.size
  func.return %0 : !shape.size
}

// -----

func.func @shape_of_to_shape_returned(%arg0: tensor<?x1xf32>) -> !shape.shape {
  // expected-error @+1 {{failed to legalize operation 'shape.shape_of' that was explicitly marked illegal}}
  %0 = shape.shape_of %arg0 : tensor<?x1xf32> -> !shape.shape
  func.return %0 : !shape.shape
}

// -----

func.func @broadcast_to_shape_returned(%arg0: tensor<4xindex>, %arg1: tensor<4xindex>) -> !shape.shape {
  // expected-error @+1 {{failed to legalize operation 'shape.broadcast' that was explicitly marked illegal}}
  %0 = shape.broadcast %arg0, %arg1 : tensor<4xindex>, tensor<4xindex> -> !shape.shape
  func.return %0 : !shape.shape
}

// -----

// Through an inlined shape.assuming: the !shape.shape leaves as the assuming's result.
func.func @shape_through_assuming(%arg0: tensor<?x1xf32>, %w: !shape.witness) -> !shape.shape {
  %r = shape.assuming %w -> (!shape.shape) {
    // expected-error @+1 {{failed to legalize operation 'shape.shape_of' that was explicitly marked illegal: its result #0 of type !shape.shape is used by 'func.return'}}
    %0 = shape.shape_of %arg0 : tensor<?x1xf32> -> !shape.shape
    shape.assuming_yield %0 : !shape.shape
  }
  func.return %r : !shape.shape
}

// -----

// The same shape consumed inside the computation is lowered (the assuming is inlined).
// CHECK-LABEL: func.func @shape_through_assuming_used
// CHECK-NOT: !shape.shape
// CHECK: return %{{.*}} : index
func.func @shape_through_assuming_used(%arg0: tensor<?x1xf32>, %w: !shape.witness) -> index {
  %r = shape.assuming %w -> (!shape.shape) {
    %0 = shape.shape_of %arg0 : tensor<?x1xf32> -> !shape.shape
    shape.assuming_yield %0 : !shape.shape
  }
  %n = shape.num_elements %r : !shape.shape -> !shape.size
  %i = shape.size_to_index %n : !shape.size
  func.return %i : index
}

// -----

// split_at (negative index counts from the back), concat and tensor.cast of extent tensors.
// CHECK-LABEL: func.func @rotate_shape
// CHECK: %[[S:.*]] = stablehlo.concatenate {{.*}} -> tensor<3xi32>
// CHECK: %[[H:.*]] = stablehlo.slice %[[S]] [0:2] : (tensor<3xi32>) -> tensor<2xi32>
// CHECK: %[[T:.*]] = stablehlo.slice %[[S]] [2:3] : (tensor<3xi32>) -> tensor<1xi32>
// CHECK: %[[R:.*]] = stablehlo.concatenate %[[T]], %[[H]], dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
// CHECK: stablehlo.dynamic_reshape %arg0, %[[R]] : (tensor<?x?x?xf32>, tensor<3xi32>) -> tensor<?x?x?xf32>
func.func @rotate_shape(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %m1 = arith.constant -1 : index
  %s = shape.shape_of %x : tensor<?x?x?xf32> -> tensor<3xindex>
  %h, %t = "shape.split_at"(%s, %m1) : (tensor<3xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
  %r = "shape.concat"(%t, %h) : (tensor<?xindex>, tensor<?xindex>) -> tensor<?xindex>
  %r3 = tensor.cast %r : tensor<?xindex> to tensor<3xindex>
  %y = stablehlo.dynamic_reshape %x, %r3 : (tensor<?x?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// tensor.dim with a runtime index picks from the whole shape with dynamic_slice.
// CHECK-LABEL: func.func @dim_at_runtime
// CHECK: %[[I:.*]] = builtin.unrealized_conversion_cast %arg1 : index to tensor<i32>
// CHECK: %[[S:.*]] = stablehlo.concatenate {{.*}} -> tensor<2xi32>
// CHECK: %[[D:.*]] = stablehlo.dynamic_slice %[[S]], %[[I]], sizes = [1] : (tensor<2xi32>, tensor<i32>) -> tensor<1xi32>
// CHECK: stablehlo.reshape %[[D]] : (tensor<1xi32>) -> tensor<i32>
func.func @dim_at_runtime(%x: tensor<?x3xf32>, %i: index) -> index {
  %d = tensor.dim %x, %i : tensor<?x3xf32>
  return %d : index
}

// -----

// arith on index: floordivsi is a truncating divide corrected by the signs of remainder and divisor.
// CHECK-LABEL: func.func @index_arith
// CHECK: %[[A:.*]] = builtin.unrealized_conversion_cast %arg0 : index to tensor<i32>
// CHECK: %[[B:.*]] = builtin.unrealized_conversion_cast %arg1 : index to tensor<i32>
// CHECK: %[[S:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<i32>
// CHECK: %[[Q:.*]] = stablehlo.divide %[[S]], %[[B]] : tensor<i32>
// CHECK: stablehlo.select
// CHECK: %[[LT:.*]] = stablehlo.compare LT, %{{.*}}, %{{.*}}, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
// CHECK: %[[M:.*]] = stablehlo.select %[[LT]]
// CHECK: %[[W:.*]] = stablehlo.convert %[[M]] : (tensor<i32>) -> tensor<i64>
// CHECK: builtin.unrealized_conversion_cast %[[W]] : tensor<i64> to i64
func.func @index_arith(%a: index, %b: index) -> i64 {
  %s = arith.addi %a, %b : index
  %q = arith.floordivsi %s, %b : index
  %lt = arith.cmpi slt, %q, %a : index
  %m = arith.select %lt, %q, %a : index
  %w = arith.index_cast %m : index to i64
  return %w : i64
}

// -----

// tensor.extract and tensor.from_elements on data tensors keep their element type.
// CHECK-LABEL: func.func @extract_pack
// CHECK: %[[E:.*]] = stablehlo.slice %arg0 [1:2, 0:1] : (tensor<2x3xi64>) -> tensor<1x1xi64>
// CHECK: %[[X:.*]] = stablehlo.reshape %[[E]] : (tensor<1x1xi64>) -> tensor<i64>
// CHECK: %[[X1:.*]] = stablehlo.reshape %[[X]] : (tensor<i64>) -> tensor<1xi64>
// CHECK: %[[X2:.*]] = stablehlo.reshape %[[X]] : (tensor<i64>) -> tensor<1xi64>
// CHECK: %[[R:.*]] = stablehlo.concatenate %[[X1]], %[[X2]], dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK: return %[[R]] : tensor<2xi64>
func.func @extract_pack(%t: tensor<2x3xi64>) -> tensor<2xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %t[%c1, %c0] : tensor<2x3xi64>
  %r = tensor.from_elements %x, %x : tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// shape.with_shape / value_of / shape_of of a value_shape, rank, shape_eq, sizes and arith.select.
// CHECK-LABEL: func.func @value_shape
// CHECK: %[[S:.*]] = stablehlo.concatenate {{.*}} -> tensor<2xi32>
// CHECK: %[[C2:.*]] = stablehlo.constant dense<2> : tensor<i32>
// CHECK: %[[EQ:.*]] = stablehlo.compare EQ, %[[S]], %[[S]]
// CHECK: %[[E0:.*]] = stablehlo.reshape {{.*}} -> tensor<i1>
// CHECK: %[[E1:.*]] = stablehlo.reshape {{.*}} -> tensor<i1>
// CHECK: %[[ALL:.*]] = stablehlo.and %[[E0]], %[[E1]] : tensor<i1>
// CHECK: %[[C3:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK: %[[M:.*]] = stablehlo.multiply %[[C2]], %[[C3]] : tensor<i32>
// CHECK: %[[T:.*]] = stablehlo.select %[[ALL]], %[[M]], %[[C2]] : tensor<i1>, tensor<i32>
// CHECK: %[[TI:.*]] = builtin.unrealized_conversion_cast %[[T]] : tensor<i32> to index
// CHECK: return %arg0, %[[TI]], %{{.*}} : tensor<?x4xf32>, index, tensor<2xindex>
func.func @value_shape(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, index, tensor<2xindex>) {
  %s = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %vs = shape.with_shape %x, %s : tensor<?x4xf32>, tensor<2xindex>
  %v = shape.value_of %vs : tensor<?x4xf32>
  %s2s = shape.shape_of %vs : !shape.value_shape -> !shape.shape
  %s2 = shape.to_extent_tensor %s2s : !shape.shape -> tensor<2xindex>
  %r = shape.rank %s2 : tensor<2xindex> -> index
  %eq = shape.shape_eq %s, %s2 : tensor<2xindex>, tensor<2xindex>
  %i = shape.index_to_size %r
  %c = shape.const_size 3
  %m = shape.mul %i, %c : !shape.size, !shape.size -> !shape.size
  %k = shape.size_to_index %m : !shape.size
  %t = arith.select %eq, %k, %r : index
  return %v, %t, %s2 : tensor<?x4xf32>, index, tensor<2xindex>
}

// -----

// shape.is_broadcastable: per right-aligned dimension a == b or a == 1 or b == 1, then the and of all.
// CHECK-LABEL: func.func @is_broadcastable
// CHECK: %[[A:.*]] = stablehlo.concatenate {{.*}} -> tensor<2xi32>
// CHECK: %[[B:.*]] = stablehlo.concatenate {{.*}} -> tensor<2xi32>
// CHECK: %[[EQ:.*]] = stablehlo.compare EQ, %[[A]], %[[B]]
// CHECK: %[[A1:.*]] = stablehlo.compare EQ, %[[A]], %[[ONE:.*]] :
// CHECK: %[[OR:.*]] = stablehlo.or %[[EQ]], %[[A1]] : tensor<2xi1>
// CHECK: %[[B1:.*]] = stablehlo.compare EQ, %[[B]], %[[ONE]] :
// CHECK: %[[OK:.*]] = stablehlo.or %[[OR]], %[[B1]] : tensor<2xi1>
// CHECK: %[[ALL:.*]] = stablehlo.and
// CHECK: builtin.unrealized_conversion_cast %[[ALL]] : tensor<i1> to i1
func.func @is_broadcastable(%x: tensor<?x4xf32>, %y: tensor<?xf32>) -> i1 {
  %a = shape.shape_of %x : tensor<?x4xf32> -> !shape.shape
  %b = shape.shape_of %y : tensor<?xf32> -> !shape.shape
  %0 = shape.is_broadcastable %a, %b : !shape.shape, !shape.shape
  return %0 : i1
}

// -----

func.func @max_of_ranks(%x: tensor<?x4xf32>, %y: tensor<?xf32>) -> !shape.shape {
  %a = shape.shape_of %x : tensor<?x4xf32> -> !shape.shape
  %b = shape.shape_of %y : tensor<?xf32> -> !shape.shape
  // expected-error @+1 {{'shape.max' on operands of different or unknown extents (!shape.shape, !shape.shape) is not supported}}
  %m = shape.max %a, %b : !shape.shape, !shape.shape -> !shape.shape
  return %m : !shape.shape
}

// -----

func.func @unranked(%x: tensor<*xf32>) -> tensor<?xindex> {
  // expected-error @+1 {{'shape.shape_of' takes an unranked tensor (tensor<*xf32>): the rank of its shape is unknown (ranked tensors only)}}
  %s = shape.shape_of %x : tensor<*xf32> -> tensor<?xindex>
  return %s : tensor<?xindex>
}

// -----

func.func @shape_argument(%s: !shape.shape, %t: !shape.shape) -> !shape.shape {
  // expected-error @+1 {{'shape.broadcast' takes a !shape.shape of unknown rank}}
  %b = shape.broadcast %s, %t : !shape.shape, !shape.shape -> !shape.shape
  return %b : !shape.shape
}

// -----

func.func @witness_escapes(%a: tensor<2xindex>, %b: tensor<2xindex>) -> !shape.witness {
  %w = shape.cstr_broadcastable %a, %b : tensor<2xindex>, tensor<2xindex>
  // expected-error @+1 {{'func.return' takes a !shape.witness: only shape.assuming and shape.assuming_all consume witnesses in a legalized program}}
  return %w : !shape.witness
}

// -----

func.func @split_at_runtime_index(%s: tensor<4xindex>, %i: index) -> tensor<?xindex> {
  // expected-error @+1 {{'shape.split_at' with a non-constant index is not supported: the ranks of its results would be unknown}}
  %h, %t = "shape.split_at"(%s, %i) : (tensor<4xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
  return %h : tensor<?xindex>
}

// -----

func.func @extent_tensor_of_unknown_length(%s: tensor<?xindex>) -> index {
  // expected-error @+1 {{'shape.num_elements' takes an extent tensor of type tensor<?xindex> whose length is unknown here}}
  %n = shape.num_elements %s : tensor<?xindex> -> index
  return %n : index
}

// -----

func.func @extract_out_of_range(%t: tensor<2x3xindex>) -> index {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{'tensor.extract' index 3 is out of range for dimension 1 of size 3}}
  %x = tensor.extract %t[%c0, %c3] : tensor<2x3xindex>
  return %x : index
}

// -----

func.func @index_constant_too_wide() -> tensor<1xindex> {
  // expected-error @+1 {{'shape.const_shape' constant 4294967296 does not fit in i32 (use index-bitwidth=64)}}
  %s = shape.const_shape [4294967296] : tensor<1xindex>
  return %s : tensor<1xindex>
}

// -----

func.func @unknown_tensor_op(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  // expected-error @+1 {{'tensor.empty' is not supported by shape-legalize-to-stablehlo}}
  %e = tensor.empty(%d) : tensor<?xf32>
  return %e : tensor<?xf32>
}
