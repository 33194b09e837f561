// RUN: hlokit-opt --stablehlo-lower-to-core %s | FileCheck %s
// RUN: hlokit-opt --stablehlo-lower-to-core %s | FileCheck %s --check-prefix=NONE

// The output IR of the named pipeline --stablehlo-lower-to-core on one program holding every kind of op it
// removes: CHLO (an implicit broadcast and erf), every deprecated op, shape-dialect
// dynamic broadcasting, batch norm, rng and rng_bit_generator, and JAX's CPU LAPACK calls (potrf, trsm),
// whose cholesky / triangular_solve the expanders then lower in turn. What is left is core StableHLO.

// No op of a non-core dialect nor any op the pipeline removes is left anywhere in the output
// (passes/stablehlo_lower_to_core.py: non_core_op_names / non_core_custom_calls, what its passes declare illegal).
// NONE-NOT: chlo.
// NONE-NOT: shape.
// NONE-NOT: tensor.
// NONE-NOT: arith.
// NONE-NOT: {{stablehlo.broadcast[^_]}}
// NONE-NOT: {{stablehlo.dot[^_]}}
// NONE-NOT: einsum
// NONE-NOT: torch_index_select
// NONE-NOT: create_token
// NONE-NOT: cross-replica-sum
// NONE-NOT: batch_norm
// NONE-NOT: stablehlo.cholesky
// NONE-NOT: triangular_solve
// NONE-NOT: {{stablehlo.rng[^_]}}
// NONE-NOT: rng_bit_generator
// NONE-NOT: custom_call

// CHLO: the broadcast made explicit, erf of f32 as polynomials in f32 arithmetic (no f64: the default
// precision=native); the deprecated dot and einsum as dot_general, broadcast as broadcast_in_dim.
// CHECK-LABEL: func.func @chlo_and_deprecated
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x4xf32>, %[[M:.*]]: tensor<4x3xf32>, %[[E:.*]]: tensor<2x3xf32>)
// CHECK: %[[BA:.*]] = stablehlo.broadcast_in_dim %[[A]], dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: stablehlo.add %[[BA]], %[[B]] : tensor<2x4xf32>
// CHECK-NOT: f64
// CHECK: stablehlo.multiply
// CHECK-NOT: f64
// CHECK: %[[D:.*]] = stablehlo.dot_general %[[ERF:[0-9a-z_]+]], %[[M]], contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[P:.*]] = stablehlo.dot_general %[[D]], %[[E]], batching_dims = [0, 1] x [0, 1], contracting_dims = [] x [] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[BC:.*]] = stablehlo.broadcast_in_dim %[[ERF]], dims = [1, 2] : (tensor<2x4xf32>) -> tensor<5x2x4xf32>
// CHECK: return %[[P]], %[[BC]] : tensor<2x3xf32>, tensor<5x2x4xf32>

// The other deprecated ops: torch_index_select as gather, unary_einsum's diagonal as reshape + strided
// slice, cross-replica-sum as all_reduce with an add body, create_token as after_all.
// CHECK-LABEL: func.func @more_deprecated
// CHECK: %[[G:.*]] = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 5>}>
// CHECK: %[[FLAT:.*]] = stablehlo.reshape %arg2 : (tensor<4x4xf64>) -> tensor<16xf64>
// CHECK: %[[DIAG:.*]] = stablehlo.slice %[[FLAT]] [0:16:5] : (tensor<16xf64>) -> tensor<4xf64>
// CHECK: %[[SUM:.*]] = "stablehlo.all_reduce"(%arg3)
// CHECK: stablehlo.add
// CHECK: %[[TOK:.*]] = stablehlo.after_all  : !stablehlo.token
// CHECK: return %[[G]], %[[DIAG]], %[[SUM]], %[[TOK]]

// Shape dialect: shape_of becomes get_dimension_size, the broadcast of the shapes a select on the
// extents equal to 1; the assuming region is inlined.
// CHECK-LABEL: func.func @shape_computation
// CHECK-SAME: (%[[X:.*]]: tensor<?x1xf32>, %[[Y:.*]]: tensor<1x?xf32>)
// CHECK: stablehlo.get_dimension_size %[[X]], dim = 0
// CHECK: stablehlo.get_dimension_size %[[Y]], dim = 1
// CHECK: %[[S:.*]] = stablehlo.select %{{.*}} : tensor<2xi1>, tensor<2xi32>
// CHECK: %[[BX:.*]] = stablehlo.dynamic_broadcast_in_dim %[[X]], %[[S]], dims = [0, 1] : (tensor<?x1xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK: %[[BY:.*]] = stablehlo.dynamic_broadcast_in_dim %[[Y]], %[[S]], dims = [0, 1] : (tensor<1x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK: %[[R:.*]] = stablehlo.multiply %[[BX]], %[[BY]] : tensor<?x?xf32>
// CHECK: return %[[R]] : tensor<?x?xf32>

// Batch norm inference: scale * rsqrt(variance + epsilon), broadcast along the feature dimension.
// CHECK-LABEL: func.func @normalize
// CHECK: %[[V:.*]] = stablehlo.add %arg4, %{{.*}} : tensor<3xf32>
// CHECK: stablehlo.rsqrt %[[V]] : tensor<3xf32>
// CHECK: stablehlo.broadcast_in_dim %{{.*}}, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: return %{{.*}} : tensor<2x3xf32>

// rng: bits from a Philox rng_bit_generator on XLA CPU's first key, expanded like the explicit THREE_FRY
// generator into 32-bit integer rounds (multiply, xor, shifts); uniform floats from the top 23 bits.
// CHECK-LABEL: func.func @random
// CHECK-SAME: (%[[LO:.*]]: tensor<f32>, %[[HI:.*]]: tensor<f32>, %[[ST:.*]]: tensor<2xui64>)
// CHECK: stablehlo.xor
// CHECK: stablehlo.shift_right_logical
// CHECK: stablehlo.reshape %{{.*}} : (tensor<6xui32>) -> tensor<2x3xui32>
// CHECK: stablehlo.subtract %[[HI]], %[[LO]] : tensor<f32>
// CHECK: stablehlo.slice %[[ST]] [0:1]
// CHECK: stablehlo.shift_left
// CHECK: %[[BITS:.*]] = stablehlo.reshape %{{.*}} : (tensor<2x2xui32>) -> tensor<4xui32>
// CHECK: %[[NEWST:.*]] = stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<1xui64>, tensor<1xui64>) -> tensor<2xui64>
// CHECK: return %{{.*}}, %[[NEWST]], %[[BITS]] : tensor<2x3xf32>, tensor<2xui64>, tensor<4xui32>

// LAPACK: potrf -> cholesky -> the column while of stablehlo-expand-cholesky (sqrt of each pivot, NaN
// flag); potrf's info from the factor's diagonal; trsm -> triangular_solve -> a row-by-row substitution
// while dividing by the diagonal.
// CHECK-LABEL: func.func @cho_solve
// CHECK-SAME: (%[[CA:.*]]: tensor<4x4xf32>, %[[CB:.*]]: tensor<4x2xf32>)
// CHECK: %[[CH:.*]]:4 = stablehlo.while({{.*}}, %{{.*}} = %[[CA]], {{.*}}) : tensor<i32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<1x1xi1>
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.sqrt %{{.*}} : tensor<1x1xf32>
// CHECK: stablehlo.dynamic_update_slice
// CHECK: stablehlo.select %{{.*}}, %{{.*}}, %[[CH]]#1 : tensor<4x4xi1>, tensor<4x4xf32>
// CHECK: stablehlo.slice %{{.*}} [0:16:5] : (tensor<16xf32>) -> tensor<4xf32>
// CHECK: stablehlo.reduce({{.*}}) applies stablehlo.minimum across dimensions = [0]
// CHECK: %[[INFO:.*]] = stablehlo.select %{{.*}} : tensor<i1>, tensor<i32>
// CHECK: %[[TS:.*]]:5 = stablehlo.while({{.*}}, %{{.*}} = %[[CB]], {{.*}}) : tensor<i32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<4x2xf32>, tensor<4x1xf32>
// CHECK: stablehlo.dot_general
// CHECK: stablehlo.divide %{{.*}} : tensor<1x2xf32>
// CHECK: return %[[TS]]#1, %[[INFO]] : tensor<4x2xf32>, tensor<i32>

module @program {
  // CHLO with an implicit broadcast, a CHLO special function, and deprecated ops (dot, broadcast, einsum).
  func.func @chlo_and_deprecated(%a: tensor<4xf32>, %b: tensor<2x4xf32>, %m: tensor<4x3xf32>, %e: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<5x2x4xf32>) {
    %0 = chlo.broadcast_add %a, %b : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = chlo.erf %0 : tensor<2x4xf32> -> tensor<2x4xf32>
    %2 = "stablehlo.dot"(%1, %m) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
    %3 = stablehlo.einsum %2, %e, config = "ab,ab->ab" : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = stablehlo.broadcast %1, sizes = [5] : (tensor<2x4xf32>) -> tensor<5x2x4xf32>
    return %3, %4 : tensor<2x3xf32>, tensor<5x2x4xf32>
  }

  // The other deprecated ops.
  func.func @more_deprecated(%x: tensor<5x1x5xi32>, %i: tensor<2xi32>, %d: tensor<4x4xf64>, %s: tensor<f32>) -> (tensor<2x1x5xi32>, tensor<4xf64>, tensor<f32>, !stablehlo.token) {
    %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x1x5xi32>, tensor<2xi32>) -> tensor<2x1x5xi32>
    %1 = stablehlo.unary_einsum %d, config = "ii->i" : (tensor<4x4xf64>) -> tensor<4xf64>
    %2 = "stablehlo.cross-replica-sum"(%s) {replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>} : (tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.create_token"() : () -> !stablehlo.token
    return %0, %1, %2, %3 : tensor<2x1x5xi32>, tensor<4xf64>, tensor<f32>, !stablehlo.token
  }

  // Dynamic broadcasting in the shape dialect.
  func.func @shape_computation(%x: tensor<?x1xf32>, %y: tensor<1x?xf32>) -> tensor<?x?xf32> {
    %0 = shape.shape_of %x : tensor<?x1xf32> -> tensor<2xindex>
    %1 = shape.shape_of %y : tensor<1x?xf32> -> tensor<2xindex>
    %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
    %3 = shape.assuming %2 -> (tensor<?x?xf32>) {
      %4 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %5 = stablehlo.dynamic_broadcast_in_dim %x, %4, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %6 = stablehlo.dynamic_broadcast_in_dim %y, %4, dims = [0, 1] : (tensor<1x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %7 = stablehlo.multiply %5, %6 : tensor<?x?xf32>
      shape.assuming_yield %7 : tensor<?x?xf32>
    }
    return %3 : tensor<?x?xf32>
  }

  // Batch norm inference.
  func.func @normalize(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %mean: tensor<3xf32>, %var: tensor<3xf32>) -> tensor<2x3xf32> {
    %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %mean, %var) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }

  // rng (to rng_bit_generator, then to its bit-level expansion) and an explicit rng_bit_generator.
  func.func @random(%lo: tensor<f32>, %hi: tensor<f32>, %state: tensor<2xui64>) -> (tensor<2x3xf32>, tensor<2xui64>, tensor<4xui32>) {
    %shape = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %0 = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
    %1, %2 = "stablehlo.rng_bit_generator"(%state) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
    return %0, %1, %2 : tensor<2x3xf32>, tensor<2xui64>, tensor<4xui32>
  }

  // JAX's CPU LAPACK calls: potrf becomes stablehlo.cholesky and trsm stablehlo.triangular_solve, which the
  // expanders then lower to while loops.
  func.func @cho_solve(%a: tensor<4x4xf32>, %b: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<i32>) {
    %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<i32>)
    %1 = stablehlo.custom_call @lapack_strsm_ffi(%0#0, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<4x4xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
    return %1, %0#1 : tensor<4x2xf32>, tensor<i32>
  }
}
