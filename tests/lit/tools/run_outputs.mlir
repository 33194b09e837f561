// hlokit-run --print-outputs[=N] (values elided past N elements, as run_hlo_module's
// --output_max_element_count) and --output as an .npz, a directory (DIR/) or a pattern ({} = the index).
// RUN: hlokit-run %s --print-outputs=10 | FileCheck %s --check-prefix=ELIDED
// ELIDED: output_0: shape=50x40 dtype=float32 min=0 max=39 mean=19.5 nan=0
// ELIDED-NEXT: {{^}}    [[ 0.,  1.,  2., ..., 37., 38., 39.],
// ELIDED: {{^}}     ...,
// ELIDED: output_1: shape=scalar dtype=int32
// ELIDED-NEXT: {{^}}    7
// RUN: hlokit-run %s | FileCheck %s --check-prefix=PLAIN
// PLAIN: output_0: shape=50x40
// PLAIN-NOT: 37., 38.

// RUN: rm -rf %t.dir %t.pat_*.npy
// RUN: hlokit-run %s --output %t.dir/
// RUN: %python -c "import numpy as np; a = np.load('%t.dir/output_0.npy'); b = np.load('%t.dir/output_1.npy'); assert a.shape == (50, 40) and a[3, 39] == 39 and b == 7, (a, b)"
// RUN: hlokit-run %s --output '%t.pat_{}.npy'
// RUN: %python -c "import numpy as np; assert np.load('%t.pat_1.npy') == 7"
// RUN: hlokit-run %s --output %t.all.npz
// RUN: %python -c "import numpy as np; z = np.load('%t.all.npz'); assert sorted(z.files) == ['output_0', 'output_1']"

// A missing parent directory is refused before any work; a failed check writes nothing.
// RUN: not hlokit-run %s --output %t.missing/sub/ 2>&1 | FileCheck %s --check-prefix=NODIR
// NODIR: hlokit-run: error: --output: cannot write '{{.*}}sub/': directory '{{.*}}missing' does not exist
// RUN: %python -c "import numpy as np; np.savez('%t.wrong.npz', output_0=np.zeros((50, 40), np.float32), output_1=np.int32(7))"
// RUN: rm -rf %t.fresh
// RUN: not hlokit-run %s --expected %t.wrong.npz --output %t.fresh/ 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: not test -e %t.fresh
// FAIL: error: --expected {{.*}}wrong.npz: outputs differ from the recorded ones
func.func @main() -> (tensor<50x40xf32>, tensor<i32>) {
  %0 = stablehlo.iota dim = 1 : tensor<50x40xf32>
  %1 = stablehlo.constant dense<7> : tensor<i32>
  func.return %0, %1 : tensor<50x40xf32>, tensor<i32>
}
