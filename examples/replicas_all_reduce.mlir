// Written by hand (not exported): a multi-replica program in the form pmap produced before jax lowered
// pmap to a manual computation: mhlo.num_replicas = 4, no partitioning, an all_reduce over the replicas.
// Computes what examples/pmap_all_reduce_4.mlir computes per row: psum(x) * 2 - x.
module @replicas_all_reduce attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %s = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %s : tensor<i32>
    }) : (tensor<3xi32>) -> tensor<3xi32>
    %c = stablehlo.constant dense<2> : tensor<3xi32>
    %1 = stablehlo.multiply %0, %c : tensor<3xi32>
    %2 = stablehlo.subtract %1, %arg0 : tensor<3xi32>
    return %2 : tensor<3xi32>
  }
}
