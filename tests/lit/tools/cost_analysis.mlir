// RUN: hlokit-translate --cost-analysis --split-input-file --peak-flops=1e9 --peak-bandwidth=1e9 %s | FileCheck %s
// RUN: hlokit-translate --cost-analysis --split-input-file --cost-rules=xla --peak-flops=1e9 --peak-bandwidth=1e9 %s | FileCheck %s --check-prefix=XLA
// RUN: hlokit-translate --cost-analysis --function=helper --peak-flops=1e9 --peak-bandwidth=1e9 %S/Inputs/cost_call.mlir | FileCheck %s --check-prefix=FN
// RUN: hlokit-translate --cost-analysis %S/Inputs/cost_call.mlir | FileCheck %s --check-prefix=MEASURED
// RUN: not hlokit-translate --cost-analysis --function=nope %S/Inputs/cost_call.mlir 2>&1 | FileCheck %s --check-prefix=NOFN
// RUN: not hlokit-translate --cost-analysis %S/Inputs/cost_dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYN

// dot_general with a batch dimension: 2 * elements(result) * K = 2 * (2*3*5) * 4 = 240
// CHECK-LABEL: cost of @main (hlokit rules; no fusion)
// CHECK: %0 = stablehlo.dot_general{{ +}}240{{ +}}0{{ +}}256 (96 + 160){{ +}}120{{ +}}1
// CHECK: %1 = stablehlo.exponential{{ +}}0{{ +}}30{{ +}}120{{ +}}120{{ +}}1
// CHECK: total @main: flops 240, transcendentals 30, bytes read 376, bytes written 240, bytes accessed 616
// CHECK: roofline: memory-bound, >= 0.616 us (compute 0.24 us at 1 GFLOP/s, memory 0.616 us at 1 GB/s; intensity 0.39 flop/byte, ridge 1; peaks given)
// XLA-LABEL: cost of @main (xla rules; no fusion)
// XLA: total @main: flops 240, transcendentals 30, bytes read 376, bytes written 240, bytes accessed 616
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %1 = stablehlo.exponential %0 : tensor<2x3x5xf32>
  return %1 : tensor<2x3x5xf32>
}

// -----

// A counted loop (as jax.lax.fori_loop writes it): 10 trips of the body, 11 of the condition.
// CHECK-LABEL: cost of @main (hlokit rules; no fusion)
// CHECK: stablehlo.while{{.*}}trip count 10
// CHECK: stablehlo.compare{{ +}}1{{ +}}0{{ +}}8 (4 + 4){{ +}}1{{ +}}11
// CHECK: stablehlo.sine{{ +}}0{{ +}}8{{ +}}32{{ +}}32{{ +}}10
// CHECK: total @main: flops 21, transcendentals 80,
// XLA-LABEL: cost of @main (xla rules; no fusion)
// XLA: stablehlo.while{{.*}}one trip (XLA's rule)
// XLA: total @main: flops 2, transcendentals 8,
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %0:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<8xf32>
   cond {
    %c10 = stablehlo.constant dense<10> : tensor<i32>
    %p = stablehlo.compare LT, %i, %c10 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    %y = stablehlo.sine %v : tensor<8xf32>
    stablehlo.return %n, %y : tensor<i32>, tensor<8xf32>
  }
  return %0#1 : tensor<8xf32>
}

// -----

// A loop whose bound is data: "unknown", counted once.
// CHECK-LABEL: cost of @main (hlokit rules; no fusion)
// CHECK: stablehlo.while{{.*}}trip count unknown: counted once
// CHECK: while loops with an unknown trip count (counted once): %0 = stablehlo.while
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.while(%v = %x) : tensor<8xf32>
   cond {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%v init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %c = stablehlo.constant dense<100.0> : tensor<f32>
    %p = stablehlo.compare LT, %s, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %y = stablehlo.add %v, %v : tensor<8xf32>
    stablehlo.return %y : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

// reduce: the body once per reduced element beyond the first (4*6 - 4 = 20); a slice reads what it yields.
// CHECK-LABEL: cost of @main (hlokit rules; no fusion)
// CHECK: %0 = stablehlo.reduce{{ +}}20{{ +}}0{{.*}}body x 20
// CHECK: %1 = stablehlo.slice{{ +}}0{{ +}}0{{ +}}8{{ +}}8{{ +}}1{{.*}}bytes read from indexing maps
func.func @main(%x: tensor<4x6xf32>) -> tensor<2xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %1 = stablehlo.slice %0 [0:4:2] : (tensor<4xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}

// FN-LABEL: cost of @helper (hlokit rules; no fusion)
// FN: %0 = stablehlo.multiply{{ +}}16
// FN-NOT: func.call
// FN: total @helper: flops 16,
// MEASURED: total @main: flops 32,
// MEASURED: roofline: {{.*}}peaks measured on this CPU with numpy
// NOFN: cost_call.mlir: error: no function named 'nope'
// DYN: cost_dynamic.mlir:2:8: error: cost analysis needs static shapes, got tensor<?xf32>
