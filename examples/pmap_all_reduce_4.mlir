// Exported by examples/export.py with jax 0.10.2 on 8 CPU devices: pmap_all_reduce_4
module @jit__fun attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]> {stablehlo.mesh = {axes = [{name = "i", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<4x3xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) -> (tensor<4x3xi32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{"i"}, {}]>] manual_axes={"i"} (%arg1: tensor<1x3xi32>) {
      %1 = stablehlo.reshape %arg1 : (tensor<1x3xi32>) -> tensor<3xi32>
      %2 = "stablehlo.all_reduce"(%1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
        %7 = stablehlo.add %arg2, %arg3 : tensor<i32>
        stablehlo.return %7 : tensor<i32>
      }) : (tensor<3xi32>) -> tensor<3xi32>
      %c = stablehlo.constant dense<2> : tensor<i32>
      %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
      %4 = stablehlo.multiply %2, %3 : tensor<3xi32>
      %5 = stablehlo.subtract %4, %1 : tensor<3xi32>
      %6 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<3xi32>) -> tensor<1x3xi32>
      sdy.return %6 : tensor<1x3xi32>
    } : (tensor<4x3xi32>) -> tensor<4x3xi32>
    return %0 : tensor<4x3xi32>
  }
}
