// hlokit-opt --check-numerics: the example plugin's pass with a deliberate numerical bug
// (examples/check_numerics/exp2_expansion.py), 6th of 10 passes among canonicalize / cse and hlokit's
// legalizations, is named with the op it rewrote, on the interpreter and on XLA; -o is not written and the IR
// before and after the pass is.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not hlokit-opt --load-pass-plugin=%examples/check_numerics/exp2_expansion.py %examples/check_numerics/program.mlir --canonicalize --stablehlo-legalize-deprecated-ops --cse --chlo-legalize-to-stablehlo --canonicalize --example-expand-exponential --cse --canonicalize --symbol-dce --cse --check-numerics --check-numerics-dir %t/interp -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BUG -DENGINE=interpreter
// RUN: not test -e %t/out.mlir
// RUN: FileCheck %s --check-prefix=BEFORE < %t/interp/06-before.mlir
// RUN: FileCheck %s --check-prefix=AFTER < %t/interp/06-after.mlir
// RUN: not hlokit-opt --load-pass-plugin=%examples/check_numerics/exp2_expansion.py %examples/check_numerics/program.mlir --canonicalize --stablehlo-legalize-deprecated-ops --cse --chlo-legalize-to-stablehlo --canonicalize --example-expand-exponential --cse --canonicalize --symbol-dce --cse --check-numerics=xla --check-numerics-dir %t/xla -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=BUG -DENGINE=xla
// RUN: not test -e %t/out.mlir
// BUG: program.mlir:16:8: error: --check-numerics: pass 'example-expand-exponential' (6 of 10) changes output 0 on [[ENGINE]] beyond the default tolerance (floats 4 ULPs of the element or of the output's largest magnitude, integers exact): max {{[0-9]+}} ULP
// BUG-SAME: a real difference (beyond --atol {{.*}})
// BUG-NEXT: program.mlir:16:8: note: first departing op: 'stablehlo.power' result 0, was 'stablehlo.exponential'
// BUG-NEXT: program.mlir: note: IR before and after the pass: {{.*}}06-before.mlir, {{.*}}06-after.mlir
// BUG-NOT: Traceback
// BEFORE: the IR before pass 6, 'example-expand-exponential'
// BEFORE: stablehlo.exponential
// AFTER: the IR after pass 6, 'example-expand-exponential'
// AFTER-NOT: stablehlo.exponential
// AFTER: stablehlo.power

// The same inside --pass-pipeline: the pass is named with its anchor.
// RUN: not hlokit-opt --load-pass-plugin=%examples/check_numerics/exp2_expansion.py %examples/check_numerics/program.mlir --pass-pipeline='builtin.module(func.func(canonicalize,cse),chlo-legalize-to-stablehlo,func.func(example-expand-exponential),cse)' --check-numerics --check-numerics-dir %t/nested 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: --check-numerics: pass 'func.func(example-expand-exponential)' (4 of 5) changes output 0

// A loose enough tolerance lets it through; the pipeline's result is printed with a note.
// RUN: hlokit-opt --load-pass-plugin=%examples/check_numerics/exp2_expansion.py %examples/check_numerics/program.mlir --canonicalize --example-expand-exponential --cse --check-numerics --rtol 1e-3 --atol 0 2>&1 | FileCheck %s --check-prefix=LOOSE
// LOOSE: program.mlir: note: numerics checked after 3 passes on interpreter, within --rtol 0.001, --atol 0
// LOOSE: func.func @main
// LOOSE: stablehlo.power

// Without the buggy pass the pipeline is clean on both engines, with seeded or given inputs.
// RUN: hlokit-opt %examples/check_numerics/program.mlir --canonicalize --stablehlo-legalize-deprecated-ops --cse --chlo-legalize-to-stablehlo --canonicalize --cse --canonicalize --symbol-dce --cse --check-numerics=xla --seed 5 2>&1 | FileCheck %s --check-prefix=CLEAN -DENGINE=xla
// RUN: %python -c "import numpy as np; np.savez('%t/in.npz', arg_0=np.ones((4, 8), np.float32), arg_1=np.ones((8, 16), np.float32), arg_2=np.zeros(16, np.float32))"
// RUN: hlokit-opt %examples/check_numerics/program.mlir --canonicalize --stablehlo-legalize-deprecated-ops --cse --chlo-legalize-to-stablehlo --canonicalize --cse --canonicalize --symbol-dce --cse --check-numerics --inputs %t/in.npz 2>&1 | FileCheck %s --check-prefix=CLEAN -DENGINE=interpreter
// CLEAN: program.mlir: note: numerics checked after 9 passes on [[ENGINE]], within the default tolerance (floats 4 ULPs of the element or of the output's largest magnitude, integers exact)
// CLEAN: func.func @main
// CLEAN-NOT: chlo.
