// Bad input of every kind: located message, exit 1, no traceback, no output file.
// RUN: rm -f %t.out
// RUN: not hlokit-opt %S/Inputs/parse_error.mlir -o %t.out 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not test -e %t.out
// PARSE: parse_error.mlir:4:22: error: use of value '%a' expects different type than prior uses: 'tensor<3xf32>' vs 'tensor<2xf32>'
// PARSE: parse_error.mlir:3:14: note: prior use here
// PARSE-NOT: Traceback

// RUN: not hlokit-opt %S/Inputs/does_not_exist.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: does_not_exist.mlir: error: could not open input file: No such file or directory

// RUN: not hlokit-opt %s --no-such-pass 2>&1 | FileCheck %s --check-prefix=PASS
// PASS: error: invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass

// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(func.func(cse' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: invalid pass pipeline {{.*}} expected ')'

// RUN: not hlokit-opt %S/Inputs/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=UNREG
// UNREG: unregistered.mlir:2:24: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect
// RUN: hlokit-opt --allow-unregistered-dialect %S/Inputs/unregistered.mlir | FileCheck %s --check-prefix=ALLOW
// ALLOW: "mydialect.frob"

// RUN: printf '\xff\xfe garbage' > %t.bin
// RUN: not hlokit-opt %t.bin 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error: input is neither UTF-8 text nor MLIR bytecode
func.func @ok() {
  func.return
}
