// Replica 1 takes the branch without the all_reduce: an error naming the op, never a hang.
func.func @f(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = stablehlo.replica_id : tensor<ui32>
  %z = stablehlo.constant dense<0> : tensor<ui32>
  %c = stablehlo.compare EQ, %r, %z : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
  %y = "stablehlo.if"(%c) ({
    %s = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %t = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %t : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi32>) -> tensor<2xi32>
    stablehlo.return %s : tensor<2xi32>
  }, {
    stablehlo.return %x : tensor<2xi32>
  }) : (tensor<i1>) -> tensor<2xi32>
  func.return %y : tensor<2xi32>
}
func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"(%a, %a) {programs = [[@f], [@f]]}
      : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  func.return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
}
