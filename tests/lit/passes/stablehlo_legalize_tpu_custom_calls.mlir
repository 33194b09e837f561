// RUN: hlokit-opt --stablehlo-legalize-tpu-custom-calls --split-input-file %s | FileCheck %s
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(stablehlo-legalize-tpu-custom-calls))' --split-input-file %s | FileCheck %s

// The output IR of --stablehlo-legalize-tpu-custom-calls, one chunk per target as JAX 0.10.2 writes it for
// jax.export(..., platforms=["tpu"]) (jnp.linalg.qr, jax.scipy.linalg.lu, jnp.linalg.eigh; the tuple form as
// in JAX's 2023 back-compatibility data; the sharding annotations as in tpu_Sharding's gspmd case). The
// CHECK lines pin the loops and the ops that characterise each rewrite; numerical agreement with numpy /
// scipy and with the results TPUs gave is tested in tests/pytest/test_tpu_custom_calls.py.

// Qr as JAX writes it today (_geqrf_lowering_rule): LAPACK geqrf's unblocked loop over min(m, n) columns,
// carrying (k, packed matrix, taus); the packed matrix and the taus replace the call's two results.
// CHECK-LABEL: func.func @qr_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>)
// CHECK: %[[W:.*]]:3 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[A]], %{{.*}} = %{{.*}}) : tensor<i32>, tensor<4x3xf32>, tensor<3xf32>
// CHECK: stablehlo.sqrt
// CHECK: stablehlo.dot_general
// CHECK: return %[[W]]#1, %[[W]]#2 : tensor<4x3xf32>, tensor<3xf32>
// CHECK-NOT: custom_call

func.func @qr_f32(%arg0: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>) {
  %0:2 = stablehlo.custom_call @Qr(%arg0) : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>)
  return %0#0, %0#1 : tensor<4x3xf32>, tensor<3xf32>
}

// -----

// Qr as JAX wrote it in 2023 (one tuple result, xla_shape): the rewritten values gathered into a
// stablehlo.tuple that the get_tuple_element reads.
// CHECK-LABEL: func.func @qr_tuple
// CHECK: %[[W:.*]]:3 = stablehlo.while
// CHECK: %[[T:.*]] = stablehlo.tuple %[[W]]#1, %[[W]]#2 : tuple<tensor<3x3xf32>, tensor<3xf32>>
// CHECK: %[[R:.*]] = stablehlo.get_tuple_element %[[T]][1]
// CHECK: return %[[R]]
// CHECK-NOT: custom_call

func.func @qr_tuple(%arg0: tensor<3x3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @Qr(%arg0) {xla_shape = "(f32[3,3]{1,0}, f32[3]{0})"} : (tensor<3x3xf32>) -> tuple<tensor<3x3xf32>, tensor<3xf32>>
  %1 = stablehlo.get_tuple_element %0[1] : (tuple<tensor<3x3xf32>, tensor<3xf32>>) -> tensor<3xf32>
  return %1 : tensor<3xf32>
}

// -----

// ProductOfElementaryHouseholderReflectors (_householder_product_lowering), batched complex: LAPACK orgqr,
// a loop from the identity carrying (k, Q, packed matrix, taus).
// CHECK-LABEL: func.func @householder_product_c64
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x3xcomplex<f32>>, %[[T:.*]]: tensor<2x3xcomplex<f32>>)
// CHECK: %[[I:.*]] = stablehlo.select
// CHECK: %[[W:.*]]:4 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[I]], %{{.*}} = %[[A]], %{{.*}} = %[[T]])
// CHECK: return %[[W]]#1 : tensor<2x4x3xcomplex<f32>>
// CHECK-NOT: custom_call

func.func @householder_product_c64(%arg0: tensor<2x4x3xcomplex<f32>>, %arg1: tensor<2x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>> {
  %0 = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%arg0, %arg1) : (tensor<2x4x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>) -> tensor<2x4x3xcomplex<f32>>
  return %0 : tensor<2x4x3xcomplex<f32>>
}

// -----

// LuDecomposition (_lu_tpu_lowering_rule): getrf's panel loop (k, lu, 0-based pivots, info, row positions,
// inverse permutation), the rows gathered into LAPACK's order, the pivots 1-based then made 0-based again for
// TPU's convention; the permutation by a second loop swapping entries of an iota.
// CHECK-LABEL: func.func @lu_f64
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf64>)
// CHECK: %[[W:.*]]:6 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[A]], {{.*}}) : tensor<i32>, tensor<4x4xf64>, tensor<4xi32>, tensor<i32>, tensor<4xi32>, tensor<4xi32>
// CHECK: %[[LU:.*]] = "stablehlo.gather"(%[[W]]#1,
// CHECK: %[[ONE:.*]] = stablehlo.constant dense<1> : tensor<4xi32>
// CHECK: %[[IPIV:.*]] = stablehlo.add %[[W]]#2, %[[ONE]] : tensor<4xi32>
// CHECK: %[[PIV:.*]] = stablehlo.subtract %[[IPIV]], %[[ONE]] : tensor<4xi32>
// CHECK: %[[ID:.*]] = stablehlo.iota dim = 0 : tensor<4xi32>
// CHECK: %[[P:.*]]:2 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[ID]]) : tensor<i32>, tensor<4xi32>
// CHECK: return %[[LU]], %[[PIV]], %[[P]]#1 : tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>
// CHECK-NOT: custom_call

func.func @lu_f64(%arg0: tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>) {
  %0:3 = stablehlo.custom_call @LuDecomposition(%arg0) {api_version = 2 : i32} : (tensor<4x4xf64>) -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>)
  return %0#0, %0#1, %0#2 : tensor<4x4xf64>, tensor<4xi32>, tensor<4xi32>
}

// -----

// Eigh (_eigh_tpu_lowering, backend_config "lower,sort,max_iter,tol"): the Hermitian matrix of the lower
// triangle (select on row >= column), two-sided Jacobi sweeps from the identity, the eigenvalues (the
// diagonal) sorted ascending with the vectors' columns; vectors first, as the call returns them.
// CHECK-LABEL: func.func @eigh_f32
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>)
// CHECK: %[[LOW:.*]] = stablehlo.compare GE
// CHECK: %[[H:.*]] = stablehlo.select %[[LOW]], %[[A]], %{{.*}}
// CHECK: %[[W:.*]]:4 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[H]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK: %[[S:.*]]:2 = "stablehlo.sort"
// CHECK: stablehlo.compare LT
// CHECK: %[[VALS:.*]] = stablehlo.reshape
// CHECK: return %[[S]]#1, %[[VALS]] : tensor<4x4xf32>, tensor<4xf32>
// CHECK-NOT: custom_call

func.func @eigh_f32(%arg0: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %0:2 = stablehlo.custom_call @Eigh(%arg0) {backend_config = "1,1,100,1e-6"} : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4x4xf32>, tensor<4xf32>
}

// -----

// Sharding annotations on one device: each one the identity (SPMDFullToShardShape / SPMDShardToFullShape
// whose operand and result have one type, manual axes of size 1).
// CHECK-LABEL: func.func @sharding
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<2x4xf32>

func.func @sharding(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[2,1]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = stablehlo.custom_call @SPMDShardToFullShape(%1) {mhlo.sharding = "{replicated}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2 : tensor<2x4xf32>
}

// -----

// A shard_map region of a module on 2 partitions: Sharding the identity; SPMDFullToShardShape a dynamic_slice
// at this partition's offsets (tables indexed by partition_id; "{devices=[1,2]0,1}" cuts the columns);
// SPMDShardToFullShape an all_gather over both partitions, each piece written at its offsets.
// CHECK-LABEL: func.func @shard_map
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[PID:.*]] = stablehlo.partition_id : tensor<ui32>
// CHECK: %[[P:.*]] = stablehlo.convert %[[PID]] : (tensor<ui32>) -> tensor<i32>
// CHECK: stablehlo.constant dense<[0, 2]> : tensor<2xi32>
// CHECK: %[[PIECE:.*]] = stablehlo.dynamic_slice %[[X]], %{{.*}}, %{{.*}}, sizes = [2, 2]
// CHECK: %[[R:.*]] = stablehlo.reshape %[[PIECE]] : (tensor<2x2xf32>) -> tensor<1x2x2xf32>
// CHECK: %[[G:.*]] = "stablehlo.all_gather"(%[[R]]) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = {{[0-9]+}}, type = 1>, replica_groups = dense<{{\[\[}}0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<1x2x2xf32>) -> tensor<2x2x2xf32>
// CHECK: %[[U0:.*]] = stablehlo.dynamic_update_slice
// CHECK: %[[U1:.*]] = stablehlo.dynamic_update_slice %[[U0]]
// CHECK: return %[[U1]] : tensor<2x4xf32>
// CHECK-NOT: custom_call

module attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func @shard_map(%arg0: tensor<2x4xf32>) -> tensor<2x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{devices=[1,2]0,1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<2x2xf32>
    %2 = stablehlo.custom_call @Sharding(%1) {mhlo.sharding = "{manual}"} : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %3 = stablehlo.custom_call @SPMDShardToFullShape(%2) {mhlo.sharding = "{devices=[1,2]0,1}"} : (tensor<2x2xf32>) -> tensor<2x4xf32>
    return %3 : tensor<2x4xf32>
  }
}
