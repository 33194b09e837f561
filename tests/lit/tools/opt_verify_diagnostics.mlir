// RUN: hlokit-opt --split-input-file --verify-diagnostics %s
// A file whose annotations do not match must fail:
// RUN: not hlokit-opt --split-input-file --verify-diagnostics %S/Inputs/wrong_expectation.mlir 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: wrong_expectation.mlir:5:{{[0-9]+}}: error: unexpected error: 'stablehlo.add' op requires the same shape
// WRONG: wrong_expectation.mlir:4:{{[0-9]+}}: error: expected error "this text is not in the message" was not produced

func.func @bad_shape(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'stablehlo.add' op requires the same shape for all operands and results}}
  %0 = "stablehlo.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<3xf32>
  func.return %a : tensor<2xf32>
}

// -----

func.func @bad_return(%a: tensor<2xf32>) -> tensor<2xi32> {
  // expected-error @+1 {{type of return operand 0 ('tensor<2xf32>') doesn't match function result type ('tensor<2xi32>')}}
  func.return %a : tensor<2xf32>
}

// -----

func.func @parse_error() {
  // expected-error @+1 {{expected SSA operand}}
  %0 = stablehlo.add , : tensor<f32>
}

// -----

// A chunk without diagnostics passes too.
func.func @fine() {
  func.return
}
