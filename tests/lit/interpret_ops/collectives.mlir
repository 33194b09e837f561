// RUN: hlokit-translate --interpret -split-input-file --interpreter-print-dense %s | FileCheck %s
// RUN: not hlokit-translate --interpret %S/Inputs/collective_other_branch.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// Distribution ops through the tool (StableHLO spec, "Execution" and each op's section).

// ERR: collective_other_branch.mlir:7:10: error: 'stablehlo.all_reduce': process (1, 0) finished its program without joining

// An all_reduce inside a while loop on a 1 x 2 grid (cross_partition through flattened ids), then a
// collective_permute that swaps the two partitions.
// CHECK: dense<[5, 9]> : tensor<2xi32>
// CHECK-NEXT: dense<[4, 8]> : tensor<2xi32>
func.func @loop(%x: tensor<2xi32>) -> tensor<2xi32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2xi32>
  cond {
    %n = stablehlo.constant dense<2> : tensor<i32>
    %b = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %b : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %s = "stablehlo.all_reduce"(%v) ({
      ^bb0(%a: tensor<i32>, %b: tensor<i32>):
        %t = stablehlo.add %a, %b : tensor<i32>
        stablehlo.return %t : tensor<i32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids}
        : (tensor<2xi32>) -> tensor<2xi32>
    stablehlo.return %j, %s : tensor<i32>, tensor<2xi32>
  }
  %p = stablehlo.partition_id : tensor<ui32>
  %pi = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
  %pb = stablehlo.broadcast_in_dim %pi, dims = [] : (tensor<i32>) -> tensor<2xi32>
  %w = stablehlo.add %r#1, %pb : tensor<2xi32>
  %q = "stablehlo.collective_permute"(%w) {source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>} : (tensor<2xi32>) -> tensor<2xi32>
  func.return %q : tensor<2xi32>
}
func.func @main() -> (tensor<2xi32>, tensor<2xi32>) {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@loop, @loop]]}
      : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  func.return %r#0, %r#1 : tensor<2xi32>, tensor<2xi32>
}
