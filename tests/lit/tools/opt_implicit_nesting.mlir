// Pass flags nest as mlir-opt nests them: a pass restricted to func.func (stablehlo-check-shape-assertions)
// goes into a func.func(...) of its own, module-level passes before and after it stay at the top.
// RUN: hlokit-opt %s --stablehlo-refine-arguments='types=tensor<8x4xf32>' --stablehlo-refine-shapes --stablehlo-check-shape-assertions | FileCheck %s --check-prefix=OK
// RUN: not hlokit-opt %s --stablehlo-refine-arguments='types=tensor<2x4xf32>' --stablehlo-refine-shapes --stablehlo-check-shape-assertions 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: hlokit-opt %s --stablehlo-refine-arguments='types=tensor<8x4xf32>' --stablehlo-refine-shapes --stablehlo-check-shape-assertions --symbol-privatize=exclude=main --canonicalize --mlir-print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ORDER
// A pass that fits neither anchor is still reported by MLIR's reason.
// RUN: not hlokit-opt %s --stablehlo-refine-shapes --stablehlo-check-shape-assertions --no-such-pass 2>&1 | FileCheck %s --check-prefix=BAD

// OK-LABEL: func.func @main(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32>
// OK-NOT: shape_assertion
// OK: stablehlo.add %arg0, %arg0 : tensor<8x4xf32>

// FAIL: opt_implicit_nesting.mlir:[[# @LINE + 13]]:3: error: Input shapes do not match: dim 0 is 2, expected >= 3

// ORDER: IR Dump After StablehloRefineArgumentsPass
// ORDER: IR Dump After StablehloRefineShapesPass
// ORDER: IR Dump After StablehloCheckShapeAssertionsPass
// ORDER: IR Dump After SymbolPrivatize
// ORDER: IR Dump After Canonicalizer

// BAD: error: invalid pass pipeline '{{.*}}': 'no-such-pass' does not refer to a registered pass
func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %d = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x4xf32>) -> tensor<i32>
  %c = stablehlo.constant dense<3> : tensor<i32>
  %ok = stablehlo.compare GE, %d, %c : (tensor<i32>, tensor<i32>) -> tensor<i1>
  stablehlo.custom_call @shape_assertion(%ok, %d) {api_version = 2 : i32, error_message = "Input shapes do not match: dim 0 is {0}, expected >= 3", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
  %0 = stablehlo.add %arg0, %arg0 : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
