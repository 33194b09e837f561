// Index arithmetic on a ?x?x4 tensor: shape.shape_of / num_elements / split_at / get_extent / from_extents,
// tensor.dim / from_elements, arith.muli / ceildivsi / cmpi / select on index, feeding dynamic_reshape,
// dynamic_iota and dynamic_broadcast_in_dim.
// Concrete argument types for a run (stablehlo-refine-arguments types=...):
// types: tensor<3x5x4xf32>
func.func @main(%x: tensor<?x?x4xf32>) -> (tensor<?xf32>, tensor<?x4xf32>, tensor<?xi32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = shape.shape_of %x : tensor<?x?x4xf32> -> tensor<3xindex>
  %n = shape.num_elements %s : tensor<3xindex> -> index
  %flat_shape = tensor.from_elements %n : tensor<1xindex>
  %flat = stablehlo.dynamic_reshape %x, %flat_shape : (tensor<?x?x4xf32>, tensor<1xindex>) -> tensor<?xf32>
  %head, %tail = "shape.split_at"(%s, %c2) : (tensor<3xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
  %rows = shape.num_elements %head : tensor<?xindex> -> index
  %cols = shape.get_extent %tail, %c0 : tensor<?xindex>, index -> index
  %ms = shape.from_extents %rows, %cols : index, index
  %me = shape.to_extent_tensor %ms : !shape.shape -> tensor<2xindex>
  %m = stablehlo.dynamic_reshape %x, %me : (tensor<?x?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %d0 = tensor.dim %x, %c0 : tensor<?x?x4xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x4xf32>
  %p = arith.muli %d0, %d1 : index
  %half = arith.ceildivsi %p, %c2 : index
  %len = tensor.from_elements %half : tensor<1xindex>
  %io = stablehlo.dynamic_iota %len, dim = 0 : (tensor<1xindex>) -> tensor<?xi32>
  %big = arith.cmpi sgt, %d0, %d1 : index
  %r = arith.select %big, %d0, %d1 : index
  %rs = tensor.from_elements %r, %cols : tensor<2xindex>
  %z = stablehlo.constant dense<1.0> : tensor<f32>
  %ones = stablehlo.dynamic_broadcast_in_dim %z, %rs, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %flat, %m, %io, %ones : tensor<?xf32>, tensor<?x4xf32>, tensor<?xi32>, tensor<?x4xf32>
}
