// A Python pass plugin (examples/plugins/divide_to_multiply.py) runs as a flag, with options, inside
// --pass-pipeline (nested in func.func(...)) and next to upstream passes; --help lists it.
// RUN: hlokit-opt --load-pass-plugin=%examples/plugins/divide_to_multiply.py %s --divide-by-constant-to-multiply --canonicalize | FileCheck %s --check-prefix=EXACT
// RUN: hlokit-opt --load-pass-plugin %examples/plugins/divide_to_multiply.py %s --pass-pipeline='builtin.module(func.func(divide-by-constant-to-multiply,canonicalize),cse)' | FileCheck %s --check-prefix=EXACT
// RUN: hlokit-opt --load-pass-plugin=%examples/plugins/divide_to_multiply.py %s --divide-by-constant-to-multiply=allow-inexact=true | FileCheck %s --check-prefix=INEXACT
// RUN: hlokit-opt --load-pass-plugin=%examples/plugins/divide_to_multiply.py %s --pass-pipeline='builtin.module(func.func(divide-by-constant-to-multiply{allow-inexact=true}))' | FileCheck %s --check-prefix=INEXACT
// A plugin given as a module name (on the Python path) works the same.
// RUN: env PYTHONPATH=%examples/plugins hlokit-opt --load-pass-plugin=divide_to_multiply %s --divide-by-constant-to-multiply | FileCheck %s --check-prefix=EXACT
// Loading the same plugin twice is harmless (the second load is a no-op).
// RUN: hlokit-opt --load-pass-plugin=%examples/plugins/divide_to_multiply.py --load-pass-plugin=%examples/plugins/divide_to_multiply.py %s --divide-by-constant-to-multiply | FileCheck %s --check-prefix=EXACT
// RUN: hlokit-opt --load-pass-plugin=%examples/plugins/divide_to_multiply.py --help | FileCheck %s --check-prefix=HELP
// RUN: hlokit-opt --help | FileCheck %s --check-prefix=NOHELP

// EXACT-LABEL: func.func @main
// EXACT-DAG: %[[Q:.*]] = stablehlo.constant dense<2.500000e-01> : tensor<4xf32>
// EXACT-DAG: %[[T:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<4xf32>
// EXACT-DAG: %[[H:.*]] = stablehlo.constant dense<-2.000000e+00> : tensor<2xbf16>
// EXACT-DAG: %[[M:.*]] = stablehlo.multiply %arg0, %[[Q]] : tensor<4xf32>
// EXACT-DAG: %[[D:.*]] = stablehlo.divide %arg0, %[[T]] : tensor<4xf32>
// EXACT-DAG: %[[B:.*]] = stablehlo.multiply %arg1, %[[H]] : tensor<2xbf16>
// EXACT-DAG: %[[S:.*]] = stablehlo.divide %arg0, %arg0 : tensor<4xf32>
// EXACT: return %[[M]], %[[D]], %[[B]], %[[S]]

// INEXACT-LABEL: func.func @main
// INEXACT: stablehlo.multiply %arg0, %{{.*}} : tensor<4xf32>
// INEXACT: stablehlo.constant dense<0.333333343> : tensor<4xf32>
// INEXACT: stablehlo.multiply %arg0, %{{.*}} : tensor<4xf32>
// INEXACT: stablehlo.multiply %arg1, %{{.*}} : tensor<2xbf16>
// INEXACT: stablehlo.divide %arg0, %arg0

// HELP: --load-pass-plugin FILE.py|MODULE
// HELP: hlokit's Python passes
// HELP-NOT: divide-by-constant-to-multiply
// HELP: Passes of the pass plugin {{.*}}divide_to_multiply.py
// HELP-NEXT: --divide-by-constant-to-multiply {{ *}}Rewrite x / c
// HELP-NEXT: allow-inexact=bool (default False)
// HELP: Upstream C++ passes
// NOHELP-NOT: divide-by-constant-to-multiply
func.func @main(%a: tensor<4xf32>, %b: tensor<2xbf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2xbf16>, tensor<4xf32>) {
  %c = stablehlo.constant dense<4.0> : tensor<4xf32>
  %t = stablehlo.constant dense<3.0> : tensor<4xf32>
  %h = stablehlo.constant dense<-0.5> : tensor<2xbf16>
  %0 = stablehlo.divide %a, %c : tensor<4xf32>
  %1 = stablehlo.divide %a, %t : tensor<4xf32>
  %2 = stablehlo.divide %b, %h : tensor<2xbf16>
  %3 = stablehlo.divide %a, %a : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<2xbf16>, tensor<4xf32>
}
