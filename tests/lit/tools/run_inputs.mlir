// hlokit-run --input in the forms of iree-run-module and run_hlo_module: TYPE=VALUES inline (one value
// splats), @FILE.npy positional (the argument after the previous --input's), NAME=@FILE.npy / NAME=FILE.npy.
// RUN: hlokit-run %s --input 2x2xf32=1,2,3,4 --input 2x2xf32=10 --print-outputs | FileCheck %s --check-prefix=INLINE
// INLINE: inputs: 2x2xf32=1,2,3,4 2x2xf32=10
// INLINE: output_0: shape=2x2 dtype=float32 min=11 max=14 mean=12.5 nan=0
// INLINE-NEXT: {{^}}    [[11., 12.],
// INLINE-NEXT: {{^}}     [13., 14.]]

// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.full((2, 2), 2, np.float32)); np.save('%t.y.npy', np.eye(2, dtype=np.float32))"
// RUN: hlokit-run %s --input @%t.x.npy --input arg_1=@%t.y.npy --print-outputs | FileCheck %s --check-prefix=FILES
// FILES: output_0: shape=2x2 dtype=float32
// FILES-NEXT: {{^}}    [[3., 2.],
// FILES-NEXT: {{^}}     [2., 3.]]
// RUN: not hlokit-run %s --input arg_1=%t.y.npy --input "2x2xf32=[0 1] [2 3]" 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: error: --input 2x2xf32=[0 1] [2 3]: positional input for arg_2, but the program takes 2 argument(s)
// RUN: hlokit-run %s --input arg_0=2x2xf32=1 --input @%t.y.npy --print-outputs | FileCheck %s --check-prefix=NAMED
// NAMED: {{^}}    [[2., 1.],
// NAMED-NEXT: {{^}}     [1., 2.]]

// Bad values: located, exit 1, nothing written.
// RUN: rm -f %t.none.npz
// RUN: not hlokit-run %s --input 2x2xf32=1,2,3 --output %t.none.npz 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not test -e %t.none.npz
// COUNT: hlokit-run: error: --input 2x2xf32=1,2,3: tensor<2x2xf32> takes 4 value(s) (or one, splatted), got 3
// COUNT-NOT: Traceback
// RUN: not hlokit-run %s --input 2x2xi32=1 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: run_inputs.mlir: error: --input 2x2xi32=1: arg_0: the program takes element type float32 (tensor<2x2xf32>) but tensor<2x2xi32> gives int32
// RUN: not hlokit-run %s --input 2x2xf32=one 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: error: --input 2x2xf32=one: not a value of tensor<2x2xf32>: could not convert string to float: 'one'
// RUN: not hlokit-run %s --input @%t.nope.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: nope.npy: error: --input @{{.*}}nope.npy: no such file
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}
