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
// PASS: hlokit-opt: error: invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass

// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(func.func(cse' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: hlokit-opt: error: invalid pass pipeline {{.*}} expected ',' or ')' after 'func.func(...', found the end of the text

// RUN: not hlokit-opt %S/Inputs/unregistered.mlir 2>&1 | FileCheck %s --check-prefix=UNREG
// UNREG: unregistered.mlir:2:24: error: operation being parsed with an unregistered dialect. If this is intended, please use -allow-unregistered-dialect
// RUN: hlokit-opt --allow-unregistered-dialect %S/Inputs/unregistered.mlir | FileCheck %s --check-prefix=ALLOW
// ALLOW: "mydialect.frob"

// RUN: printf '\xff\xfe garbage' > %t.bin
// RUN: not hlokit-opt %t.bin 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: error: input is neither UTF-8 text nor MLIR bytecode
// A bad option value: the reason LLVM's option parser gives, after the tool prefix; no output file.
// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(canonicalize{max-iterations=abc})' -o %t.out 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not test -e %t.out
// VALUE: hlokit-opt: error: invalid pass pipeline 'canonicalize{max-iterations=abc}': for the --max-iterations option: 'abc' value invalid for long argument!
// A bad nested pipeline is an error (MLIR would print it and go on): exit 1, no output file.
// RUN: not hlokit-opt %s --pass-pipeline='builtin.module(inline{default-pipeline=((((})' -o %t.out 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not test -e %t.out
// NESTED: hlokit-opt: error: invalid pass pipeline 'inline{default-pipeline=((((}': default-pipeline '((((' has unbalanced brackets
// RUN: not hlokit-opt %s -o %t.missing/dir/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: hlokit-opt: error: -o: cannot write '{{.*}}out.mlir': directory '{{.*}}dir' does not exist
func.func @ok() {
  func.return
}
