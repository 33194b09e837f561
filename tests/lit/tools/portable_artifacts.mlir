// Every tool reads a StableHLO portable artifact (VHLO bytecode) directly, recognised by its content: written
// here for the newest and the oldest StableHLO version jaxlib writes, then run, rewritten and interpreted.
// RUN: hlokit-translate --serialize --target=current %s -o %t.cur.mlirbc
// RUN: hlokit-translate --serialize --target=minimum %s -o %t.min.mlirbc
// RUN: hlokit-translate --interpret %t.cur.mlirbc | FileCheck %s --check-prefix=INTERP
// RUN: hlokit-translate --interpret %t.min.mlirbc | FileCheck %s --check-prefix=INTERP
// RUN: hlokit-opt %t.min.mlirbc --canonicalize | FileCheck %s --check-prefix=OPT
// RUN: hlokit-opt %t.cur.mlirbc --stablehlo-lower-to-core | FileCheck %s --check-prefix=CORE
// RUN: hlokit-run %t.min.mlirbc --engine both | FileCheck %s --check-prefix=EXEC
// RUN: hlokit-translate --serialize --target=minimum %examples/mlp.mlir -o %t.mlp.mlirbc
// RUN: hlokit-run %t.mlp.mlirbc --engine interpreter | FileCheck %s --check-prefix=MLP

// A truncated artifact: a located error, exit 1, nothing written.
// RUN: head -c 200 %t.mlp.mlirbc > %t.trunc.mlirbc
// RUN: rm -f %t.out
// RUN: not hlokit-run %t.trunc.mlirbc --output %t.out 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not hlokit-opt %t.trunc.mlirbc --canonicalize -o %t.out 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not hlokit-translate --interpret %t.trunc.mlirbc -o %t.out 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not test -e %t.out

// An artifact of a StableHLO newer than jaxlib's (its producer string patched): both versions named.
// RUN: %python -c "import sys; d = open(sys.argv[1], 'rb').read(); i = d.index(b'StableHLO_v') + 11; open(sys.argv[2], 'wb').write(d[:i] + b'9' + d[i + 1:])" %t.cur.mlirbc %t.new.mlirbc
// RUN: not hlokit-run %t.new.mlirbc 2>&1 | FileCheck %s --check-prefix=NEW
// RUN: not hlokit-translate --interpret %t.new.mlirbc 2>&1 | FileCheck %s --check-prefix=NEW

// INTERP:      tensor<3xf32> {
// INTERP-NEXT:   [7.310586e-01, 8.807971e-01, 9.525741e-01]
// INTERP:      tensor<2x2xf32> {
// INTERP-NEXT:   [
// INTERP-NEXT:     [2.000000e+00, 0.000000e+00],
// INTERP-NEXT:     [1.000000e+00, 1.414214e+00]
// OPT-NOT: vhlo
// OPT: func.func @main() -> (tensor<3xf32>, tensor<2x2xf32>)
// OPT: stablehlo.logistic
// OPT: stablehlo.cholesky
// CORE-NOT: vhlo
// CORE: func.func @main()
// CORE-NOT: stablehlo.cholesky
// CORE: return
// EXEC: function: @main
// EXEC: output_0: shape=3 dtype=float32
// EXEC: output_1: shape=2x2 dtype=float32
// EXEC: interpreter vs XLA
// MLP: function: @main
// MLP: arg_4: tensor<10xf32>
// MLP: output_0: shape=64x10 dtype=float32
// BAD: trunc.mlirbc: error: cannot deserialize the StableHLO portable artifact: {{.+}}
// NEW: new.mlirbc: error: cannot deserialize the StableHLO portable artifact: it was written by StableHLO 9.{{[0-9]+}}.{{[0-9]+}}, newer than the StableHLO {{[0-9.]+}} of this jaxlib
func.func @main() -> (tensor<3xf32>, tensor<2x2xf32>) {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = stablehlo.logistic %c : tensor<3xf32>
  %a = stablehlo.constant dense<[[4.0, 2.0], [2.0, 3.0]]> : tensor<2x2xf32>
  %l = stablehlo.cholesky %a, lower = true : tensor<2x2xf32>
  func.return %0, %l : tensor<3xf32>, tensor<2x2xf32>
}
