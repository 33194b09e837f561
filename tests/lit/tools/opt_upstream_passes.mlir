// Upstream C++ passes shipped in jaxlib run by flag (with options) and inside pipelines.
// RUN: hlokit-opt %s --stablehlo-refine-shapes | FileCheck %s --check-prefix=REFINE
// RUN: hlokit-opt %s --pass-pipeline='builtin.module(stablehlo-refine-shapes,func.func(canonicalize{max-iterations=4}))' | FileCheck %s --check-prefix=REFINE
// RUN: hlokit-opt %s --stablehlo-refine-shapes --canonicalize='max-iterations=4 top-down=false' | FileCheck %s --check-prefix=REFINE
// RUN: not hlokit-opt %s --canonicalize='no-such-option=1' 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(stablehlo-legalize-dot-to-dot-general{bogus=1})' 2>&1 | FileCheck %s --check-prefix=PYOPT

// REFINE-LABEL: func.func @main
// REFINE: stablehlo.abs %arg0 : tensor<4xf32>
// REFINE: return {{.*}} : tensor<4xf32>
// BADOPT: error: invalid pass pipeline 'canonicalize{no-such-option=1}'
// PYOPT: error: no such option 'bogus' for pass 'stablehlo-legalize-dot-to-dot-general'
func.func @main(%a: tensor<4xf32>) -> tensor<?xf32> {
  %0 = stablehlo.abs %a : (tensor<4xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
