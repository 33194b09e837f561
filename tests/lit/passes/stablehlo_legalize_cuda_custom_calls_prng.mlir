// RUN: hlokit-opt --stablehlo-legalize-cuda-custom-calls --split-input-file %s | FileCheck %s --check-prefixes=CHECK,CUDA
// RUN: hlokit-opt --stablehlo-legalize-rocm-custom-calls --split-input-file %s | FileCheck %s --check-prefixes=CHECK,ROCM

// The output IR of the GPU custom-call passes for JAX's Threefry-2x32 kernel (cu_ / hip_threefry2x32_ffi,
// the legacy cu_threefry2x32 with its opaque descriptor) and lu_pivots_to_permutation, one chunk per target;
// the calls are as JAX 0.10.2 writes them (jax.export for cuda / rocm with jax_threefry_gpu_kernel_lowering
// on; _lu_pivots_to_permutation_gpu_lowering). Each pass rewrites its platform's spelling only: the other
// platform's call stays. Bit-exactness against JAX is tested in tests/pytest/test_gpu_prng_pivots.py.

// -----

// Threefry-2x32: key schedule (k0, k1, k0 ^ k1 ^ 0x1BD11BDA = 466688986), 20 rounds (add; rotate left by
// 13 = shl 13 | shr 19; xor), the last key injection adds 5 to word 1.
// CHECK-LABEL: func.func @threefry_ffi
// CHECK-SAME: (%[[K0:.*]]: tensor<3x5xui32>, %[[K1:.*]]: tensor<3x5xui32>, %[[X0:.*]]: tensor<3x5xui32>, %[[X1:.*]]: tensor<3x5xui32>)
// CUDA-NOT: custom_call
// CUDA: %[[KX:.*]] = stablehlo.xor %[[K0]], %[[K1]] : tensor<3x5xui32>
// CUDA: %[[P:.*]] = stablehlo.constant dense<466688986> : tensor<3x5xui32>
// CUDA: %[[K2:.*]] = stablehlo.xor %[[KX]], %[[P]]
// CUDA: %[[A:.*]] = stablehlo.add %[[X0]], %[[K0]]
// CUDA: %[[B:.*]] = stablehlo.add %[[X1]], %[[K1]]
// CUDA: stablehlo.add %[[A]], %[[B]]
// CUDA: %[[R13:.*]] = stablehlo.constant dense<13> : tensor<3x5xui32>
// CUDA: stablehlo.shift_left %[[B]], %[[R13]]
// CUDA: %[[R19:.*]] = stablehlo.constant dense<19> : tensor<3x5xui32>
// CUDA: stablehlo.shift_right_logical %[[B]], %[[R19]]
// CUDA-COUNT-19: stablehlo.shift_left
// CUDA-NOT: stablehlo.shift_left
// CUDA: %[[Y0:.*]] = stablehlo.add %{{.*}}, %[[K2]] : tensor<3x5xui32>
// CUDA: %[[T:.*]] = stablehlo.add %{{.*}}, %[[K0]] : tensor<3x5xui32>
// CUDA: %[[FIVE:.*]] = stablehlo.constant dense<5> : tensor<3x5xui32>
// CUDA: %[[Y1:.*]] = stablehlo.add %[[T]], %[[FIVE]]
// CUDA: return %[[Y0]], %[[Y1]] : tensor<3x5xui32>, tensor<3x5xui32>
// ROCM: stablehlo.custom_call @cu_threefry2x32_ffi
func.func @threefry_ffi(%k0: tensor<3x5xui32>, %k1: tensor<3x5xui32>, %x0: tensor<3x5xui32>, %x1: tensor<3x5xui32>) -> (tensor<3x5xui32>, tensor<3x5xui32>) {
  %0:2 = stablehlo.custom_call @cu_threefry2x32_ffi(%k0, %k1, %x0, %x1) {mhlo.backend_config = {}, operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<3x5xui32>, tensor<3x5xui32>, tensor<3x5xui32>, tensor<3x5xui32>) -> (tensor<3x5xui32>, tensor<3x5xui32>)
  return %0#0, %0#1 : tensor<3x5xui32>, tensor<3x5xui32>
}

// -----

// ROCm's spelling: the same cipher.
// CHECK-LABEL: func.func @threefry_hip
// ROCM-NOT: custom_call
// ROCM: stablehlo.constant dense<466688986> : tensor<4xui32>
// ROCM-COUNT-20: stablehlo.shift_left
// ROCM: return
// CUDA: stablehlo.custom_call @hip_threefry2x32_ffi
func.func @threefry_hip(%k0: tensor<4xui32>, %k1: tensor<4xui32>, %x0: tensor<4xui32>, %x1: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
  %0:2 = stablehlo.custom_call @hip_threefry2x32_ffi(%k0, %k1, %x0, %x1) {mhlo.backend_config = {}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>]} : (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return %0#0, %0#1 : tensor<4xui32>, tensor<4xui32>
}

// -----

// The legacy target (api_version 2): backend_config is the 8-byte ThreeFry2x32Descriptor (n = 15).
// CHECK-LABEL: func.func @threefry_legacy
// CUDA-NOT: custom_call
// CUDA: stablehlo.constant dense<466688986> : tensor<3x5xui32>
// CUDA-COUNT-20: stablehlo.shift_left
// ROCM: stablehlo.custom_call @cu_threefry2x32(
func.func @threefry_legacy(%k0: tensor<3x5xui32>, %k1: tensor<3x5xui32>, %x0: tensor<3x5xui32>, %x1: tensor<3x5xui32>) -> (tensor<3x5xui32>, tensor<3x5xui32>) {
  %0:2 = stablehlo.custom_call @cu_threefry2x32(%k0, %k1, %x0, %x1) {api_version = 2 : i32, backend_config = "\0F\00\00\00\00\00\00\00", operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>], result_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>]} : (tensor<3x5xui32>, tensor<3x5xui32>, tensor<3x5xui32>, tensor<3x5xui32>) -> (tensor<3x5xui32>, tensor<3x5xui32>)
  return %0#0, %0#1 : tensor<3x5xui32>, tensor<3x5xui32>
}

// -----

// lu_pivots_to_permutation: a while over the 4 pivots carrying the permutation (from the identity iota of
// size 8, the result's last dimension); pivot j of each batch element is valid when 0 <= j < 8, and the two
// entries i and j are read by one-hot masks + add-reductions, then swapped by selects.
// CHECK-LABEL: func.func @pivots
// CHECK-SAME: (%[[P:.*]]: tensor<2x3x4xi32>)
// CUDA-NOT: custom_call
// CUDA: %[[ID:.*]] = stablehlo.iota dim = 2 : tensor<2x3x8xi32>
// CUDA: %[[W:.*]]:2 = stablehlo.while(%[[I:.*]] = %{{.*}}, %[[PERM:.*]] = %[[ID]]) : tensor<i32>, tensor<2x3x8xi32>
// CUDA: stablehlo.constant dense<4> : tensor<i32>
// CUDA: stablehlo.compare LT, %[[I]]
// CUDA: stablehlo.dynamic_slice %[[P]], %{{.*}}, %{{.*}}, %[[I]], sizes = [2, 3, 1]
// CUDA: stablehlo.compare GE
// CUDA: stablehlo.constant dense<8> : tensor<2x3xi32>
// CUDA: stablehlo.compare LT
// CUDA: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [2]
// CUDA: stablehlo.reduce({{.*}}) applies stablehlo.add across dimensions = [2]
// CUDA: stablehlo.select
// CUDA: %[[NEW:.*]] = stablehlo.select
// CUDA: stablehlo.return %{{.*}}, %[[NEW]] : tensor<i32>, tensor<2x3x8xi32>
// CUDA: return %[[W]]#1 : tensor<2x3x8xi32>
// ROCM: stablehlo.custom_call @cu_lu_pivots_to_permutation
func.func @pivots(%p: tensor<2x3x4xi32>) -> tensor<2x3x8xi32> {
  %0 = stablehlo.custom_call @cu_lu_pivots_to_permutation(%p) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "2"}, operand_layouts = [dense<[2, 1, 0]> : tensor<3xindex>], result_layouts = [dense<[2, 1, 0]> : tensor<3xindex>]} : (tensor<2x3x4xi32>) -> tensor<2x3x8xi32>
  return %0 : tensor<2x3x8xi32>
}

// -----

// ROCm's spelling, without batch dimensions.
// CHECK-LABEL: func.func @pivots_hip
// ROCM-NOT: custom_call
// ROCM: stablehlo.iota dim = 0 : tensor<6xi32>
// ROCM: stablehlo.while
// ROCM: return
// CUDA: stablehlo.custom_call @hip_lu_pivots_to_permutation
func.func @pivots_hip(%p: tensor<3xi32>) -> tensor<6xi32> {
  %0 = stablehlo.custom_call @hip_lu_pivots_to_permutation(%p) {mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<0> : tensor<1xindex>], result_layouts = [dense<0> : tensor<1xindex>]} : (tensor<3xi32>) -> tensor<6xi32>
  return %0 : tensor<6xi32>
}
