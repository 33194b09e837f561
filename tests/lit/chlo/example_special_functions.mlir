// examples/special_functions.mlir (a JAX export) is left without any CHLO op; its private helper
// functions (@arccosh, @isinf) are legalized too and kept.
// RUN: hlokit-opt --chlo-legalize-to-stablehlo %examples/special_functions.mlir | FileCheck %s

// CHECK: func.func public @main
// CHECK-NOT: chlo.
// CHECK: func.func private @arccosh
// CHECK-NOT: chlo.
// CHECK: func.func private @isinf
// CHECK-NOT: chlo.
