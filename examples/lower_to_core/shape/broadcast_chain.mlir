// Dynamic broadcasting in the shape dialect, as the C++ chlo-legalize-to-stablehlo of jaxlib writes it for
// chlo.broadcast_multiply / broadcast_add / broadcast_compare on ?-shaped operands: shape.shape_of,
// shape.cstr_broadcastable, shape.assuming, shape.broadcast feeding dynamic_broadcast_in_dim on tensor<2xindex>.
// Concrete argument types for a run (stablehlo-refine-arguments types=...):
// types: tensor<3x1xf32>,tensor<1x5xf32>,tensor<5xf32>
module {
  func.func @main(%arg0: tensor<?x1xf32>, %arg1: tensor<1x?xf32>, %arg2: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>) {
    %0 = shape.shape_of %arg0 : tensor<?x1xf32> -> tensor<2xindex>
    %1 = shape.shape_of %arg1 : tensor<1x?xf32> -> tensor<2xindex>
    %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
    %3 = shape.assuming %2 -> (tensor<?x?xf32>) {
      %12 = shape.shape_of %arg0 : tensor<?x1xf32> -> tensor<2xindex>
      %13 = shape.shape_of %arg1 : tensor<1x?xf32> -> tensor<2xindex>
      %14 = shape.broadcast %12, %13 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %15 = stablehlo.dynamic_broadcast_in_dim %arg0, %14, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %16 = stablehlo.dynamic_broadcast_in_dim %arg1, %14, dims = [0, 1] : (tensor<1x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %17 = stablehlo.multiply %15, %16 : tensor<?x?xf32>
      shape.assuming_yield %17 : tensor<?x?xf32>
    }
    %4 = shape.shape_of %3 : tensor<?x?xf32> -> tensor<2xindex>
    %5 = shape.shape_of %arg2 : tensor<?xf32> -> tensor<1xindex>
    %6 = shape.cstr_broadcastable %4, %5 : tensor<2xindex>, tensor<1xindex>
    %7 = shape.assuming %6 -> (tensor<?x?xf32>) {
      %12 = shape.shape_of %3 : tensor<?x?xf32> -> tensor<2xindex>
      %13 = shape.shape_of %arg2 : tensor<?xf32> -> tensor<1xindex>
      %14 = shape.broadcast %12, %13 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
      %15 = stablehlo.dynamic_broadcast_in_dim %3, %14, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %16 = stablehlo.dynamic_broadcast_in_dim %arg2, %14, dims = [1] : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %17 = stablehlo.add %15, %16 : tensor<?x?xf32>
      shape.assuming_yield %17 : tensor<?x?xf32>
    }
    %8 = shape.shape_of %7 : tensor<?x?xf32> -> tensor<2xindex>
    %9 = shape.shape_of %arg0 : tensor<?x1xf32> -> tensor<2xindex>
    %10 = shape.cstr_broadcastable %8, %9 : tensor<2xindex>, tensor<2xindex>
    %11 = shape.assuming %10 -> (tensor<?x?xi1>) {
      %12 = shape.shape_of %7 : tensor<?x?xf32> -> tensor<2xindex>
      %13 = shape.shape_of %arg0 : tensor<?x1xf32> -> tensor<2xindex>
      %14 = shape.broadcast %12, %13 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
      %15 = stablehlo.dynamic_broadcast_in_dim %7, %14, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %16 = stablehlo.dynamic_broadcast_in_dim %arg0, %14, dims = [0, 1] : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %17 = stablehlo.compare GT, %15, %16 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      shape.assuming_yield %17 : tensor<?x?xi1>
    }
    return %3, %7, %11 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>
  }
}
