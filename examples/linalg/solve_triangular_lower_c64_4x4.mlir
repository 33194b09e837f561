// Exported by examples/linalg/export.py with jax 0.10.2: solve_triangular_lower complex64 batch=() n=4
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4x2xcomplex<f32>>) -> (tensor<4x2xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = call @_solve_triangular(%arg0, %arg1) : (tensor<4x4xcomplex<f32>>, tensor<4x2xcomplex<f32>>) -> tensor<4x2xcomplex<f32>>
    return %0 : tensor<4x2xcomplex<f32>>
  }
  func.func private @_solve_triangular(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4x2xcomplex<f32>>) -> tensor<4x2xcomplex<f32>> {
    %0 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %arg1) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=4, j=4, k=4, l=2, m=4, n=2}, custom>} : (tensor<4x4xcomplex<f32>>, tensor<4x2xcomplex<f32>>) -> tensor<4x2xcomplex<f32>>
    return %0 : tensor<4x2xcomplex<f32>>
  }
}
