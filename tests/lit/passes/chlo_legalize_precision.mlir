// RUN: hlokit-opt --chlo-legalize-to-stablehlo --split-input-file %s | FileCheck %s --check-prefix=NATIVE
// RUN: hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo{precision=wide}))' --split-input-file %s | FileCheck %s --check-prefix=WIDE
// RUN: not hlokit-opt --pass-pipeline='builtin.module(func.func(chlo-legalize-to-stablehlo{precision=double}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// precision=native (the default): special functions of f32 in f32 arithmetic, no f64 anywhere.
// precision=wide: through f64, rounded once.
// NATIVE-LABEL: func.func @erf_f32
// NATIVE-NOT: f64
// NATIVE: return {{.*}} : tensor<4xf32>
// WIDE-LABEL: func.func @erf_f32
// WIDE: stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xf64>
// WIDE: %[[R:.*]] = stablehlo.convert {{.*}} : (tensor<4xf64>) -> tensor<4xf32>
// WIDE: return %[[R]]
// BAD: error: invalid value 'double' for option 'precision' of pass 'chlo-legalize-to-stablehlo' (expected one of: native, wide)
func.func @erf_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// bf16 goes through f32 (native) or f64 (wide).
// NATIVE-LABEL: func.func @lgamma_bf16
// NATIVE: stablehlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf32>
// NATIVE-NOT: f64
// NATIVE: return {{.*}} : tensor<3xbf16>
// WIDE-LABEL: func.func @lgamma_bf16
// WIDE: stablehlo.convert %arg0 : (tensor<3xbf16>) -> tensor<3xf64>
func.func @lgamma_bf16(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = chlo.lgamma %x : tensor<3xbf16> -> tensor<3xbf16>
  return %0 : tensor<3xbf16>
}

// -----

// complex<f32> parts stay f32 (native).
// NATIVE-LABEL: func.func @asin_complex64
// NATIVE: stablehlo.real %arg0
// NATIVE-NOT: f64
// NATIVE: return {{.*}} : tensor<2xcomplex<f32>>
// WIDE-LABEL: func.func @asin_complex64
// WIDE: stablehlo.convert {{.*}} -> tensor<2xf64>
func.func @asin_complex64(%z: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = chlo.asin %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
