// A pass plugin that does not load, or whose pass fails: a located error, exit 1, no traceback, no -o file.
// RUN: rm -rf %t && mkdir -p %t
// (A syntax error is tested in tests/pytest/test_pass_plugins.py: tests/ holds only Python that parses.)

// An exception while it is imported: at the plugin's line.
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_raises_at_import.py %s -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=RAISES
// RUN: not test -e %t/out.mlir
// RAISES: plugin_raises_at_import.py:5:10: error: cannot load pass plugin: KeyError raised while importing it: 'factor'
// RAISES-NOT: Traceback

// A missing file, a missing module.
// RUN: not hlokit-opt --load-pass-plugin=%t/no_such_plugin.py %s 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: no_such_plugin.py: error: cannot load pass plugin: no such file
// RUN: not hlokit-opt --load-pass-plugin=no_such_package.passes %s 2>&1 | FileCheck %s --check-prefix=NOMODULE
// NOMODULE: no_such_package.passes: error: cannot load pass plugin: no module named 'no_such_package.passes'

// A name that hlokit's pass has; an upstream pass's name (a plugin may not shadow one).
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_duplicate.py %s -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not test -e %t/out.mlir
// DUP: plugin_duplicate.py:5:2: error: cannot load pass plugin: pass 'stablehlo-legalize-dot-to-dot-general' is already registered (hlokit's pass StablehloLegalizeDotToDotGeneral); choose another name
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_shadows_upstream.py %s 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: plugin_shadows_upstream.py:11:1: error: cannot load pass plugin: pass 'canonicalize' is already an upstream MLIR pass; a plugin may not shadow it (choose another name)
// Two plugins with the same pass name: the second is refused, naming the first.
// RUN: cp %S/Inputs/plugin_raises_in_pass.py %t/copy_of_plugin.py
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_raises_in_pass.py --load-pass-plugin=%t/copy_of_plugin.py %s 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: copy_of_plugin.py:5:2: error: cannot load pass plugin: pass 'plugin-test-crash' is already registered (a pass of the pass plugin '{{.*}}plugin_raises_in_pass.py'); choose another name

// A pass that raises: located at the op it ran on, like hlokit's passes (here the module: the pass runs on
// every function of it), with where in the plugin it raised; one that refuses an op: at that op.
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_raises_in_pass.py %s --plugin-test-crash -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=CRASH
// RUN: not test -e %t/out.mlir
// CRASH: pass_plugin_errors.mlir:1:1: error: internal error in pass 'plugin-test-crash': KeyError: 'missing' (raised at {{.*}}plugin_raises_in_pass.py:11:16)
// CRASH-NOT: Traceback
// RUN: not hlokit-opt --load-pass-plugin=%S/Inputs/plugin_raises_in_pass.py %s --pass-pipeline='builtin.module(func.func(canonicalize,plugin-test-refuse-divide))' -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=REFUSE
// RUN: not test -e %t/out.mlir
// REFUSE: pass_plugin_errors.mlir:[[# @LINE + 6]]:8: error: plugin-test-refuse-divide: I do not like this divide

// Without the plugin its passes are unknown.
// RUN: not hlokit-opt %s --plugin-test-crash 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: hlokit-opt: error: invalid pass pipeline 'plugin-test-crash': 'plugin-test-crash' does not refer to a registered pass
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.divide %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
