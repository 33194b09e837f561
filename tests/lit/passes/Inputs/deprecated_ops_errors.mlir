// Refused cases of --stablehlo-legalize-deprecated-ops, run by ../stablehlo_legalize_deprecated_ops.mlir
// with --split-input-file --verify-diagnostics.

func.func @size_mismatch(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'stablehlo.einsum': label 'b' of einsum config 'ab,bc->ac' has sizes 3 and 4}}
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  func.return %0 : tensor<2x5xf32>
}

// -----

func.func @output_only_label(%a: tensor<2x2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{output label 'z' of einsum config 'ij->iz' is in no operand}}
  %0 = stablehlo.unary_einsum %a, config = "ij->iz" : (tensor<2x2xf32>) -> tensor<2x1xf32>
  func.return %0 : tensor<2x1xf32>
}

// -----

func.func @wrong_result(%a: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{einsum config 'ab->a' gives shape [2], the result type is tensor<3xf32>}}
  %0 = stablehlo.unary_einsum %a, config = "ab->a" : (tensor<2x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @bad_character(%a: tensor<2x3xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{operand term 0 'a1' has the character '1' (labels are ASCII letters)}}
  %0 = stablehlo.unary_einsum %a, config = "a1->a" : (tensor<2x3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}

// -----

func.func @dynamic_einsum(%a: tensor<?x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'stablehlo.einsum' with a dynamic shape is not supported by stablehlo-legalize-deprecated-ops (static shapes only)}}
  %0 = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}

// -----

// The refusal comes before any rewrite: the broadcast before the einsum is left as it is.
func.func @atomic(%a: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  %0 = stablehlo.broadcast %a, sizes = [3] : (tensor<2xf32>) -> tensor<3x2xf32>
  // expected-error @+1 {{output label 'j' of einsum config 'i->j' is in no operand}}
  %1 = stablehlo.unary_einsum %a, config = "i->j" : (tensor<2xf32>) -> tensor<2xf32>
  func.return %0, %1 : tensor<3x2xf32>, tensor<2xf32>
}

// -----

func.func @torch_index_select_dim(%x: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'stablehlo.torch_index_select': dim 2 and batch_dims 0 do not fit an operand of rank 2 and an index of rank 1}}
  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 2 : i64, batch_dims = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  func.return %0 : tensor<5x3xf32>
}

// -----

func.func @torch_index_select_result(%x: tensor<5x3xf32>, %i: tensor<2xi32>) -> tensor<5x3xf32> {
  // expected-error @+1 {{'stablehlo.torch_index_select': the result type tensor<5x3xf32> differs from tensor<2x3xf32>}}
  %0 = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<5x3xf32>
  func.return %0 : tensor<5x3xf32>
}
