// The remaining deprecated ops in one program: stablehlo.create_token, stablehlo.cross-replica-sum (one
// replica: the sum over the replica group {0}) and a bf16 stablehlo.dot of 1024 x 1024 matrices.
func.func @main(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %t = stablehlo.create_token : !stablehlo.token
  %t2 = stablehlo.after_all %t : !stablehlo.token
  %d = stablehlo.dot %a, %b : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  %s = "stablehlo.cross-replica-sum"(%d) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  func.return %s : tensor<1024x1024xbf16>
}
