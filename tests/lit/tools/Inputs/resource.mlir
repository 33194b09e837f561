// Input of tools/opt_print_flags.mlir (a dense_resource blob).
func.func @f() -> tensor<2xf32> {
  %0 = stablehlo.constant dense_resource<blob1> : tensor<2xf32>
  return %0 : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000000803F00000040"
    }
  }
#-}
