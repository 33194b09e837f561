// Exported by examples/export.py with jax 0.10.2 on 8 CPU devices: tp_matmul_2x2
module @jit__lambda attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"x"}]>}, %arg1: tensor<32x24xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) -> (tensor<16x24xi32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x32xi32>, tensor<32x24xi32>) -> tensor<16x24xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16x24xi32>
    %2 = stablehlo.maximum %0, %1 : tensor<16x24xi32>
    return %2 : tensor<16x24xi32>
  }
}
