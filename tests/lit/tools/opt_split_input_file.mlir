// RUN: hlokit-opt --split-input-file %s | FileCheck %s
// RUN: not hlokit-opt %s 2>&1 | FileCheck %s --check-prefix=NOSPLIT

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
// NOSPLIT: redefinition of symbol named 'f'
func.func @first() {
  func.return
}
func.func @f() {
  func.return
}

// -----

func.func @second() {
  func.return
}
func.func @f() {
  func.return
}
