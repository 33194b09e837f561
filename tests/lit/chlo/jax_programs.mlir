// Every CHLO program JAX emits for the jax.scipy.special / jax.lax functions that lower to CHLO
// (Inputs/jax_chlo_programs.mlir, from jax.jit(f).lower(...).as_text()) is left without a CHLO op.
// RUN: hlokit-opt --split-input-file --chlo-legalize-to-stablehlo %S/Inputs/jax_chlo_programs.mlir | FileCheck %s
// RUN: grep -c "chlo\." %S/Inputs/jax_chlo_programs.mlir | FileCheck %s --check-prefix=INPUT

// INPUT: {{[1-9][0-9]+}}
// CHECK-NOT: chlo.
// CHECK: stablehlo.
// CHECK-NOT: chlo.
