// Einsums with repeated labels and labels summed out of one operand (f64): a batched trace
// (unary_einsum "bii->b"), a diagonal-times-matrix product "bii,bij->bj" and a product "bij,jk->bk" whose
// label i is summed out of the first operand alone, on 16 matrices of 512 x 512. XLA cannot compile
// unary_einsum: compare the legalized program with numpy.einsum.
func.func @main(%a: tensor<16x512x512xf64>, %b: tensor<16x512x512xf64>, %c: tensor<512x256xf64>) -> (tensor<16xf64>, tensor<16x512xf64>, tensor<16x256xf64>) {
  %tr = stablehlo.unary_einsum %a, config = "bii->b" : (tensor<16x512x512xf64>) -> tensor<16xf64>
  %dm = stablehlo.einsum %a, %b, config = "bii,bij->bj" : (tensor<16x512x512xf64>, tensor<16x512x512xf64>) -> tensor<16x512xf64>
  %bf = stablehlo.einsum %b, %c, config = "bij,jk->bk" : (tensor<16x512x512xf64>, tensor<512x256xf64>) -> tensor<16x256xf64>
  func.return %tr, %dm, %bf : tensor<16xf64>, tensor<16x512xf64>, tensor<16x256xf64>
}
