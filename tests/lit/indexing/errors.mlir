// Ops without an indexing map are refused with a located error, never a guessed map.
// RUN: hlokit-translate --indexing-maps %s --split-input-file --verify-diagnostics
// RUN: hlokit-translate --indexing-maps %s --split-input-file --verify-diagnostics --fusion
// RUN: not hlokit-translate --indexing-maps %s --function nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: error: no function named 'nope'

func.func @custom_call(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{no indexing map for 'stablehlo.custom_call'}}
  %0 = stablehlo.custom_call @foo(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @dynamic(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{indexing maps need static shapes}}
  %0 = stablehlo.negate %a : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

