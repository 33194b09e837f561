// RUN: hlokit-translate --stablehlo-to-hlo-text %s | FileCheck %s
// RUN: hlokit-translate --stablehlo-to-hlo-text %s | hlokit-translate --hlo-text-to-stablehlo - | FileCheck %s --check-prefix=BACK
// RUN: hlokit-translate --hlo-text-to-stablehlo %S/Inputs/add.hlo | FileCheck %s --check-prefix=HLO
// RUN: not hlokit-translate --hlo-text-to-stablehlo %S/Inputs/bad.hlo 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: HloModule
// CHECK: ENTRY
// CHECK: f32[2,3]{1,0} parameter(0)
// CHECK: transpose(
// BACK: func.func @main(%arg0: tensor<2x3xf32>) -> tensor<3x2xf32>
// BACK: stablehlo.transpose %arg0, dims = [1, 0]
// HLO: func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32>
// HLO: stablehlo.add %arg0, %arg1 : tensor<4xf32>
// BAD: bad.hlo:5:29: error: cannot parse as an instruction name
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  func.return %0 : tensor<3x2xf32>
}
