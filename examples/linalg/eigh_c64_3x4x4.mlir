// Exported by examples/linalg/export.py with jax 0.10.2: eigh complex64 batch=(3,) n=4
module @jit_eigh attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x4xcomplex<f32>>) -> (tensor<3x4xf32> {jax.result_info = "result.eigenvalues"}, tensor<3x4x4xcomplex<f32>> {jax.result_info = "result.eigenvectors"}) {
    %0:2 = call @eigh(%arg0) : (tensor<3x4x4xcomplex<f32>>) -> (tensor<3x4xf32>, tensor<3x4x4xcomplex<f32>>)
    return %0#0, %0#1 : tensor<3x4xf32>, tensor<3x4x4xcomplex<f32>>
  }
  func.func private @eigh(%arg0: tensor<3x4x4xcomplex<f32>>) -> (tensor<3x4xf32>, tensor<3x4x4xcomplex<f32>>) {
    %0 = stablehlo.transpose %arg0, dims = [0, 2, 1] : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x4xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x4xf32>
    %2 = stablehlo.imag %0 : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x4xf32>
    %3 = stablehlo.negate %2 : tensor<3x4x4xf32>
    %4 = stablehlo.complex %1, %3 : tensor<3x4x4xcomplex<f32>>
    %5 = stablehlo.add %arg0, %4 : tensor<3x4x4xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<3x4x4xcomplex<f32>>
    %7 = stablehlo.divide %5, %6 : tensor<3x4x4xcomplex<f32>>
    %8:3 = stablehlo.custom_call @lapack_cheevd_ffi(%7) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i]) {i=3, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<3x4x4xcomplex<f32>>) -> (tensor<3x4x4xcomplex<f32>>, tensor<3x4xf32>, tensor<3xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<3x4x4xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x4x4xi1>
    %14 = stablehlo.select %13, %8#0, %12 : tensor<3x4x4xi1>, tensor<3x4x4xcomplex<f32>>
    %15 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<3xi1>) -> tensor<3x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x4xi1>
    %18 = stablehlo.select %17, %8#1, %16 : tensor<3x4xi1>, tensor<3x4xf32>
    return %18, %14 : tensor<3x4xf32>, tensor<3x4x4xcomplex<f32>>
  }
}
