// hlokit-run --list-devices: the devices of --platform (kind, count, memory), no program needed.
// RUN: hlokit-run --list-devices --devices 2 | FileCheck %s
// CHECK: platform: cpu  devices: 2
// CHECK-NEXT: 0: {{.*}}  kind: cpu  process 0  memory: {{[0-9.]+}} GiB host memory (shared)
// CHECK-NEXT: 1: {{.*}}  kind: cpu  process 0  memory:
// RUN: not hlokit-run --list-devices --platform rocm 2>&1 | FileCheck %s --check-prefix=ROCM
// ROCM: hlokit-run: error: platform 'rocm' is not available
// RUN: not hlokit-run 2>&1 | FileCheck %s --check-prefix=NOPROG
// NOPROG: hlokit-run: error: no PROGRAM given (only --list-devices runs without one)
