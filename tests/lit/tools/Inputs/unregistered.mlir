func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "mydialect.frob"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %a : tensor<2xf32>
}
