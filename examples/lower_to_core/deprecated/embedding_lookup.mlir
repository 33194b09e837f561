// An embedding lookup with stablehlo.torch_index_select (a 32000 x 512 f32 table, 8 x 512 token ids) and a
// per-example selection with batch_dims = 1 (for each of the 8 rows, 64 of its 512 positions), then a
// projection with the deprecated stablehlo.dot and a bias added with stablehlo.broadcast.
func.func @main(%table: tensor<32000x512xf32>, %ids: tensor<8x512xi32>, %pos: tensor<8x64xi32>, %w: tensor<512x1024xf32>, %bias: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %emb = "stablehlo.torch_index_select"(%table, %ids) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<32000x512xf32>, tensor<8x512xi32>) -> tensor<8x512x512xf32>
  %sel = "stablehlo.torch_index_select"(%emb, %pos) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<8x512x512xf32>, tensor<8x64xi32>) -> tensor<8x64x512xf32>
  %flat = stablehlo.reshape %sel : (tensor<8x64x512xf32>) -> tensor<512x512xf32>
  %y = stablehlo.dot %flat, %w : (tensor<512x512xf32>, tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %bb = stablehlo.broadcast %bias, sizes = [512] : (tensor<1024xf32>) -> tensor<512x1024xf32>
  %r = stablehlo.add %y, %bb : tensor<512x1024xf32>
  func.return %r : tensor<512x1024xf32>
}
