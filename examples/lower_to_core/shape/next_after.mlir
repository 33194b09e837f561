// chlo.constant_like and chlo.next_after on ?x4 operands, as the C++ chlo-legalize-to-stablehlo of jaxlib writes
// them: every splat constant is broadcast to shape.shape_of of the operand (tensor<2xindex>).
// Concrete argument types for a run (stablehlo-refine-arguments types=...):
// types: tensor<3x4xf32>,tensor<3x4xf32>
module {
  func.func @main(%arg0: tensor<?x4xf32>, %arg1: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
    %1 = stablehlo.dynamic_broadcast_in_dim %cst, %0, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %2 = stablehlo.bitcast_convert %arg0 : (tensor<?x4xf32>) -> tensor<?x4xi32>
    %3 = stablehlo.bitcast_convert %arg1 : (tensor<?x4xf32>) -> tensor<?x4xi32>
    %4 = stablehlo.compare NE, %arg0, %arg0 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %5 = stablehlo.compare NE, %arg1, %arg1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %6 = stablehlo.or %4, %5 : tensor<?x4xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %7 = shape.shape_of %arg0 : tensor<?x4xf32> -> tensor<2xindex>
    %8 = stablehlo.dynamic_broadcast_in_dim %cst_0, %7, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
    %9 = stablehlo.bitcast_convert %8 : (tensor<?x4xf32>) -> tensor<?x4xi32>
    %c = stablehlo.constant dense<-2147483648> : tensor<i32>
    %10 = shape.shape_of %2 : tensor<?x4xi32> -> tensor<2xindex>
    %11 = stablehlo.dynamic_broadcast_in_dim %c, %10, dims = [] : (tensor<i32>, tensor<2xindex>) -> tensor<?x4xi32>
    %c_1 = stablehlo.constant dense<2147483647> : tensor<i32>
    %12 = shape.shape_of %2 : tensor<?x4xi32> -> tensor<2xindex>
    %13 = stablehlo.dynamic_broadcast_in_dim %c_1, %12, dims = [] : (tensor<i32>, tensor<2xindex>) -> tensor<?x4xi32>
    %14 = stablehlo.and %2, %13 : tensor<?x4xi32>
    %15 = stablehlo.and %3, %13 : tensor<?x4xi32>
    %16 = stablehlo.compare EQ, %arg0, %arg1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %17 = shape.shape_of %2 : tensor<?x4xi32> -> tensor<2xindex>
    %18 = stablehlo.dynamic_broadcast_in_dim %c_2, %17, dims = [] : (tensor<i32>, tensor<2xindex>) -> tensor<?x4xi32>
    %19 = stablehlo.compare EQ, %14, %18 : (tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi1>
    %20 = stablehlo.compare EQ, %15, %18 : (tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi1>
    %21 = stablehlo.and %2, %11 : tensor<?x4xi32>
    %22 = stablehlo.and %3, %11 : tensor<?x4xi32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %23 = shape.shape_of %2 : tensor<?x4xi32> -> tensor<2xindex>
    %24 = stablehlo.dynamic_broadcast_in_dim %c_3, %23, dims = [] : (tensor<i32>, tensor<2xindex>) -> tensor<?x4xi32>
    %25 = stablehlo.or %22, %24 : tensor<?x4xi32>
    %26 = stablehlo.compare NE, %21, %22 : (tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi1>
    %27 = stablehlo.compare GT, %14, %15 : (tensor<?x4xi32>, tensor<?x4xi32>) -> tensor<?x4xi1>
    %28 = stablehlo.or %27, %26 : tensor<?x4xi1>
    %c_4 = stablehlo.constant dense<-1> : tensor<i32>
    %29 = shape.shape_of %2 : tensor<?x4xi32> -> tensor<2xindex>
    %30 = stablehlo.dynamic_broadcast_in_dim %c_4, %29, dims = [] : (tensor<i32>, tensor<2xindex>) -> tensor<?x4xi32>
    %31 = stablehlo.select %28, %30, %24 : tensor<?x4xi1>, tensor<?x4xi32>
    %32 = stablehlo.add %2, %31 : tensor<?x4xi32>
    %33 = stablehlo.select %20, %3, %25 : tensor<?x4xi1>, tensor<?x4xi32>
    %34 = stablehlo.select %19, %33, %32 : tensor<?x4xi1>, tensor<?x4xi32>
    %35 = stablehlo.select %16, %3, %34 : tensor<?x4xi1>, tensor<?x4xi32>
    %36 = stablehlo.select %6, %9, %35 : tensor<?x4xi1>, tensor<?x4xi32>
    %37 = stablehlo.bitcast_convert %36 : (tensor<?x4xi32>) -> tensor<?x4xf32>
    %38 = stablehlo.multiply %37, %1 : tensor<?x4xf32>
    return %37, %38 : tensor<?x4xf32>, tensor<?x4xf32>
  }
}
