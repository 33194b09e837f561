// hlokit-run --benchmark[=N]: one warm-up run, N timed runs per engine, min / median / p90, compile apart.
// RUN: hlokit-run %s --benchmark=3 --engine both | FileCheck %s
// CHECK: time: parse {{.*}} ms, XLA start-up {{.*}} ms, compile {{.*}} ms, run {{.*}} ms (median of 3), interpreter {{.*}} ms
// CHECK-NEXT: benchmark: 1 warm-up run, then 3 timed run(s) per engine; XLA compile {{[0-9.]+}} ms, not counted
// CHECK-NEXT: XLA: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, p90 {{[0-9.]+}} ms
// CHECK-NEXT: interpreter: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, p90 {{[0-9.]+}} ms
// RUN: hlokit-run %s --benchmark | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: benchmark: 1 warm-up run, then 10 timed run(s) per engine
// Multi-device programs: per-device times too. Not a terminal: no progress on stderr.
// RUN: hlokit-run %examples/dp_mlp_2.mlir --benchmark=2 2>%t.err | FileCheck %s --check-prefix=DEVICES
// RUN: not test -s %t.err
// DEVICES: XLA: min
// DEVICES-NEXT: XLA {{.*}}0{{.*}} (dispatch to results ready): min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, p90
// DEVICES-NEXT: XLA {{.*}}1{{.*}} (dispatch to results ready): min
// RUN: not hlokit-run %s --benchmark=0 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: hlokit-run: error: --benchmark: expected a positive number of timed runs, got 0
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.exponential %a : tensor<8xf32>
  func.return %0 : tensor<8xf32>
}
