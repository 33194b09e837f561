// Exported by examples/export.py with jax 0.10.2 on 8 CPU devices: collectives_4
module @jit_body attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=4]> {stablehlo.mesh = {axes = [{name = "i", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x8xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) -> (tensor<2x8xi32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8x8xi32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, tensor<8x8xi32> {jax.result_info = "result[2]", sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}, tensor<8x8xi32> {jax.result_info = "result[3]", sdy.sharding = #sdy.sharding<@mesh, [{}, {"i"}]>}) {
    %0:4 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"i"}, {}]>, <@mesh, [{}, {"i"}]>] manual_axes={"i"} (%arg1: tensor<2x8xi32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
        %9 = stablehlo.add %arg2, %arg3 : tensor<i32>
        stablehlo.return %9 : tensor<i32>
      }) : (tensor<2x8xi32>) -> tensor<2x8xi32>
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2x8xi32>) -> tensor<8x8xi32>
      %c = stablehlo.constant dense<3> : tensor<i32>
      %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x8xi32>
      %4 = stablehlo.multiply %arg1, %3 : tensor<2x8xi32>
      %c_0 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x8xi32>
      %6 = stablehlo.add %4, %5 : tensor<2x8xi32>
      %7 = "stablehlo.collective_permute"(%6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2x8xi32>) -> tensor<2x8xi32>
      %8 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, split_count = 4 : i64, split_dimension = 1 : i64}> : (tensor<2x8xi32>) -> tensor<8x2xi32>
      sdy.return %1, %2, %7, %8 : tensor<2x8xi32>, tensor<8x8xi32>, tensor<2x8xi32>, tensor<8x2xi32>
    } : (tensor<8x8xi32>) -> (tensor<2x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>)
    return %0#0, %0#1, %0#2, %0#3 : tensor<2x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>, tensor<8x8xi32>
  }
}
