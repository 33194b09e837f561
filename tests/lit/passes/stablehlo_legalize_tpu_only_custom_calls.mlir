// RUN: hlokit-opt --stablehlo-legalize-tpu-only-custom-calls %s | FileCheck %s

// --stablehlo-legalize-tpu-only-custom-calls rewrites only the TPU custom calls no other XLA backend runs
// (LuDecomposition, as --stablehlo-legalize-tpu-custom-calls does); Qr, Eigh (which XLA CPU / GPU expand
// themselves) and the sharding annotations (which XLA's partitioner reads) stay. What XLA needs off TPU.

// CHECK-LABEL: func.func @mixed
// CHECK-SAME: (%[[A:.*]]: tensor<3x3xf32>)
// CHECK: %[[S:.*]] = stablehlo.custom_call @Sharding(%[[A]]) {mhlo.sharding = "{replicated}"}
// CHECK: %[[W:.*]]:6 = stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %[[S]], {{.*}}) : tensor<i32>, tensor<3x3xf32>, tensor<3xi32>, tensor<i32>, tensor<3xi32>, tensor<3xi32>
// CHECK: %[[LU:.*]] = "stablehlo.gather"(%[[W]]#1,
// CHECK: %[[IPIV:.*]] = stablehlo.add %[[W]]#2
// CHECK: %[[PIV:.*]] = stablehlo.subtract %[[IPIV]]
// CHECK-NOT: @LuDecomposition
// CHECK: %[[QR:.*]]:2 = stablehlo.custom_call @Qr(%[[LU]])
// CHECK: %[[E:.*]]:2 = stablehlo.custom_call @Eigh(%[[QR]]#0) {backend_config = "1,1,100,1e-6"}
// CHECK: return %[[E]]#0, %[[PIV]]
func.func @mixed(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>) {
  %0 = stablehlo.custom_call @Sharding(%arg0) {mhlo.sharding = "{replicated}"} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1:3 = stablehlo.custom_call @LuDecomposition(%0) {api_version = 2 : i32} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xi32>, tensor<3xi32>)
  %2:2 = stablehlo.custom_call @Qr(%1#0) : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  %3:2 = stablehlo.custom_call @Eigh(%2#0) {backend_config = "1,1,100,1e-6"} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3xf32>)
  return %3#0, %1#1 : tensor<3x3xf32>, tensor<3xi32>
}
