"""Python pass plugins: ``hlokit-opt --load-pass-plugin`` and ``hlokit.passes.registry.load_pass_plugin``.

Every test leaves the registry as it found it (the autouse fixture unloads what a test loaded), so the
rest of the suite (e.g. the one-lit-test-per-pass-flag check) never sees a plugin's pass.
"""

from __future__ import annotations

import re
import shlex
import sys
import textwrap

import numpy as np
import pytest

import hlokit
from conftest import REPO
from hlokit.passes import plugins, registry, run_pipeline
from hlokit.passes.plugins import PluginError
from hlokit.tools import hlokit_opt

EXAMPLE = REPO / "examples" / "plugins" / "divide_to_multiply.py"

PROGRAM = """\
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<8.0> : tensor<4xf32>
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.divide %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""

#: A plugin of two passes: one that renames every stablehlo.add into a multiply (the option picks which),
#: one that refuses a function holding a divide, located at the divide; and a counter of imports.
PLUGIN = '''\
import os

from jaxlib.mlir import ir
from hlokit.passes.registry import Option, Pass, fail, register_pass
from hlokit.passes.template_pass import TemplatePass

with open(__file__ + ".runs", "a") as f:
    f.write("x")


@register_pass
class AddToOther(TemplatePass):
    argument = "test-plugin-add-to"
    summary = "Rewrite stablehlo.add as another elementwise op"
    options = (Option("op", str, "multiply", "the op replacing add"),)
    illegal_ops = frozenset({"stablehlo.add"})

    def attributes(self, op):
        return (self.op,)

    def build(self, e, operands, info):
        return e.elementwise(info.attrs[0], operands[0], operands[1])


@register_pass
class NoDivide(Pass):
    argument = "test-plugin-no-divide"
    summary = "Refuse a function with a divide"

    def run_on_operation(self, func):
        found = []
        func.walk(lambda op: (found.append(op.operation) if op.name == "stablehlo.divide" else None,
                              ir.WalkResult.ADVANCE)[1])
        if found:
            raise fail("test-plugin-no-divide: a divide", found[0])


@register_pass
class Crash(Pass):
    argument = "test-plugin-crash"
    summary = "A bug"
    anchor = "builtin.module"

    def run_on_operation(self, module):
        values = []
        return values[3]
'''


@pytest.fixture(autouse=True)
def _restore_registry():
    registry.load_builtin_passes()
    before = dict(registry.PASSES), dict(registry.PIPELINES)
    loaded = {p.key for p in plugins.loaded_plugins()}
    yield
    for p in plugins.loaded_plugins():
        if p.key not in loaded:
            plugins.unload_pass_plugin(p.key)  # (the resolved path: the test may have changed directory)
    assert (registry.PASSES, registry.PIPELINES) == before


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def opt(capsys, *argv):
    code = hlokit_opt.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# -- the API ----------------------------------------------------------------------------------------------

def test_load_returns_names_and_the_passes_run_in_a_pipeline(tmp_path):
    path = write(tmp_path, "my_passes.py", PLUGIN)
    names = registry.load_pass_plugin(str(path))
    assert names == ["test-plugin-add-to", "test-plugin-no-divide", "test-plugin-crash"]
    assert plugins.plugin_of("test-plugin-add-to").source == str(path)
    module = hlokit.parse(PROGRAM)
    run_pipeline(module, "builtin.module(func.func(test-plugin-add-to{op=subtract}),canonicalize)")
    text = str(module)
    assert "stablehlo.subtract" in text and "stablehlo.add" not in text


def test_loading_twice_runs_the_plugin_once_and_unloading_forgets_it(tmp_path):
    path = write(tmp_path, "my_passes.py", PLUGIN)
    runs = tmp_path / "my_passes.py.runs"
    first = registry.load_pass_plugin(str(path))
    assert registry.load_pass_plugin(str(path)) == first
    assert registry.load_pass_plugin(str(tmp_path / "." / "my_passes.py")) == first  # the same real file
    assert runs.read_text() == "x"
    assert plugins.unload_pass_plugin(str(path)) == first
    assert all(registry.get_pass(n) is None for n in first)
    assert registry.load_pass_plugin(str(path)) == first  # loaded afresh
    assert runs.read_text() == "xx"


def test_a_module_plugin_on_the_python_path(tmp_path, monkeypatch):
    write(tmp_path, "hlokit_test_plugin_mod.py", PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert registry.load_pass_plugin("hlokit_test_plugin_mod")[0] == "test-plugin-add-to"
    plugins.unload_pass_plugin("hlokit_test_plugin_mod")
    assert "hlokit_test_plugin_mod" not in sys.modules


def test_a_pass_that_refuses_leaves_the_ir_verified(tmp_path):
    registry.load_pass_plugin(str(write(tmp_path, "my_passes.py", PLUGIN)))
    module = hlokit.parse(PROGRAM, source_name="prog.mlir")
    before = str(module)
    with pytest.raises(hlokit.PassError) as err:
        run_pipeline(module, "builtin.module(func.func(test-plugin-no-divide))")
    assert str(err.value) == "prog.mlir:4:8: error: test-plugin-no-divide: a divide"
    assert module.operation.verify() and str(module) == before


# -- hlokit-opt -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("passes", [
    ["--test-plugin-add-to=op=maximum", "--canonicalize"],
    ["--test-plugin-add-to='op=maximum'", "--cse"],
    ["--pass-pipeline=builtin.module(func.func(canonicalize,test-plugin-add-to{op=maximum}),cse)"],
    ["--pass-pipeline=builtin.module(test-plugin-add-to{op=maximum})"],
])
def test_opt_runs_plugin_passes_in_flags_and_pipelines(tmp_path, capsys, passes):
    path = write(tmp_path, "my_passes.py", PLUGIN)
    src = write(tmp_path, "prog.mlir", PROGRAM)
    code, out, err = opt(capsys, "--load-pass-plugin", path, src, *passes)
    assert code == 0, err
    assert "stablehlo.maximum %arg0, %arg0" in out and "stablehlo.add" not in out


def test_opt_default_option_and_two_plugins(tmp_path, capsys):
    src = write(tmp_path, "prog.mlir", PROGRAM)
    code, out, err = opt(capsys, f"--load-pass-plugin={write(tmp_path, 'my_passes.py', PLUGIN)}",
                         f"--load-pass-plugin={EXAMPLE}", src, "--test-plugin-add-to",
                         "--divide-by-constant-to-multiply", "--canonicalize")
    assert code == 0, err
    assert "stablehlo.multiply %arg0, %arg0" in out
    assert "dense<1.250000e-01>" in out and "stablehlo.divide" not in out


def test_opt_help_lists_plugin_passes_and_options(tmp_path, capsys):
    path = write(tmp_path, "my_passes.py", PLUGIN)
    code, out, _ = opt(capsys, "--load-pass-plugin", path, "--help")
    assert code == 0
    section = out.split(f"Passes of the pass plugin {path}")[1].split("Upstream C++ passes")[0]
    assert re.search(r"--test-plugin-add-to +Rewrite stablehlo.add as another elementwise op", section)
    assert "op=str (default 'multiply'): the op replacing add" in section
    assert "--test-plugin-no-divide" in section
    plugins.unload_pass_plugin(str(path))
    assert "test-plugin" not in opt(capsys, "--help")[1]


PIPELINE_PLUGIN = PLUGIN + '''

from hlokit.passes.registry import register_pipeline

register_pipeline("test-plugin-pipeline", "add to maximum, then canonicalize",
                  "func.func(test-plugin-add-to{op=maximum}),canonicalize")
'''


def test_a_plugin_may_register_a_named_pipeline(tmp_path, capsys):
    path = write(tmp_path, "my_passes.py", PIPELINE_PLUGIN)
    src = write(tmp_path, "prog.mlir", PROGRAM)
    code, out, err = opt(capsys, "--load-pass-plugin", path, src, "--test-plugin-pipeline")
    assert code == 0, err
    assert "stablehlo.maximum %arg0, %arg0" in out
    help_text = opt(capsys, "--load-pass-plugin", path, "--help")[1]
    assert re.search(r"--test-plugin-pipeline +add to maximum, then canonicalize \(pipeline\)",
                     help_text.split("Passes of the pass plugin")[1])
    assert plugins.unload_pass_plugin(str(path))[-1] == "test-plugin-pipeline"
    assert registry.get_pipeline("test-plugin-pipeline") is None


def test_a_plugin_pipeline_may_not_shadow_an_upstream_pass(tmp_path, capsys):
    path = write(tmp_path, "bad_plugin.py", PLUGIN + "\nfrom hlokit.passes.registry import register_pipeline\n"
                 "register_pipeline('cse', 'mine', 'canonicalize')\n")
    code, _, err = opt(capsys, "--load-pass-plugin", path, write(tmp_path, "prog.mlir", PROGRAM))
    assert code == 1
    assert err.strip() == (f"{path}: error: cannot load pass plugin: pipeline 'cse' is already an upstream MLIR "
                           "pass; a plugin may not shadow it (choose another name)")


def test_opt_unknown_plugin_pass_without_the_plugin(tmp_path, capsys):
    code, _, err = opt(capsys, write(tmp_path, "prog.mlir", PROGRAM), "--test-plugin-add-to")
    assert code == 1 and "'test-plugin-add-to' does not refer to a registered pass" in err


# -- errors -----------------------------------------------------------------------------------------------

#: expected messages (regexes; {f} the plugin's path). A refused class is located at its @register_pass line (the
#: class line where Python's inspect gives that instead).
IMPORT_ERRORS = {
    "syntax": ("x = 1\ndef f(:\n    pass\n", r"{f}:2:7: error: cannot load pass plugin: SyntaxError: invalid syntax"),
    "raises": ("import math\n\nX = math.sqrt(-1)\n",
               r"{f}:3:5: error: cannot load pass plugin: ValueError raised while importing it: math domain error"),
    "missing dependency": ("import os\nimport hlokit_no_such_dependency\n",
                           r"{f}:2:1: error: cannot load pass plugin: ModuleNotFoundError: "
                           r"No module named 'hlokit_no_such_dependency'"),
    "hlokit pass": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                    "class P(Pass):\n    argument = 'stablehlo-expand-rng'\n",
                    r"{f}:4:2: error: cannot load pass plugin: pass 'stablehlo-expand-rng' is already registered "
                    r"\(hlokit's pass StablehloExpandRng\); choose another name"),
    "hlokit pipeline": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                        "class P(Pass):\n    argument = 'stablehlo-lower-to-core'\n",
                        r"{f}:4:2: error: cannot load pass plugin: pass 'stablehlo-lower-to-core' is already "
                        r"registered \(a named pipeline of hlokit\)"),
    "upstream pass": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                      "class Ok(Pass):\n    argument = 'test-plugin-ok'\n\n\n@register_pass\n"
                      "class P(Pass):\n    argument = 'canonicalize'\n",
                      r"{f}:(?:9|10):1: error: cannot load pass plugin: pass 'canonicalize' is already an upstream MLIR pass; "
                      r"a plugin may not shadow it"),
    "upstream function pass": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                               "class P(Pass):\n    argument = 'stablehlo-check-shape-assertions'\n",
                               r"{f}:[45]:1: error: cannot load pass plugin: pass 'stablehlo-check-shape-assertions' is "
                               r"already an upstream MLIR pass"),
    "no argument": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                    "class P(Pass):\n    summary = 'nameless'\n",
                    r"{f}:4:2: error: cannot load pass plugin: P has no 'argument'"),
    "bad name": ("from hlokit.passes.registry import Pass, register_pass\n\n\n@register_pass\n"
                 "class P(Pass):\n    argument = 'my pass'\n",
                 r"{f}:[45]:1: error: cannot load pass plugin: pass name 'my pass' cannot be a flag"),
    "not a pass": ("from hlokit.passes.registry import register_pass\n\n\n@register_pass\n"
                   "class P:\n    argument = 'test-plugin-not-a-pass'\n",
                   r"{f}:[45]:1: error: cannot load pass plugin: 'test-plugin-not-a-pass' is registered with .*, "
                   r"which is no subclass of hlokit.passes.registry.Pass"),
}


@pytest.mark.parametrize("case", sorted(IMPORT_ERRORS))
def test_a_plugin_that_does_not_load_is_a_located_error(tmp_path, capsys, case):
    text, expected = IMPORT_ERRORS[case]
    path = write(tmp_path, "bad_plugin.py", text)
    out_file = tmp_path / "out.mlir"
    code, out, err = opt(capsys, f"--load-pass-plugin={path}", write(tmp_path, "prog.mlir", PROGRAM), "-o", out_file)
    assert code == 1 and out == ""
    assert re.fullmatch(expected.format(f=re.escape(str(path))) + ".*", err.strip()), err
    assert not out_file.exists()
    assert plugins.loaded_plugins() == [] or all(p.key != str(path) for p in plugins.loaded_plugins())
    assert registry.get_pass("test-plugin-ok") is None  # what it registered before failing is gone
    assert not any(m.startswith("hlokit_pass_plugin_bad_plugin") for m in sys.modules)
    with pytest.raises(PluginError):  # the API raises the same error, also on a second try
        registry.load_pass_plugin(str(path))


def test_missing_plugin_file_and_module(tmp_path, capsys):
    src = write(tmp_path, "prog.mlir", PROGRAM)
    code, _, err = opt(capsys, "--load-pass-plugin", tmp_path / "nope.py", src)
    assert code == 1 and err.strip() == f"{tmp_path / 'nope.py'}: error: cannot load pass plugin: no such file"
    code, _, err = opt(capsys, "--load-pass-plugin=hlokit_no_such.plugin", src)
    assert code == 1
    assert err.strip() == ("hlokit_no_such.plugin: error: cannot load pass plugin: no module named "
                           "'hlokit_no_such.plugin'")
    code, _, err = opt(capsys, f"--load-pass-plugin={tmp_path}", src)
    assert code == 1 and "cannot load pass plugin: it is a directory" in err


def test_two_plugins_with_one_name(tmp_path, capsys):
    first = write(tmp_path, "first.py", PLUGIN)
    second = write(tmp_path, "second.py", PLUGIN)
    code, _, err = opt(capsys, "--load-pass-plugin", first, "--load-pass-plugin", second,
                       write(tmp_path, "prog.mlir", PROGRAM))
    assert code == 1
    line = PLUGIN.splitlines().index("class AddToOther(TemplatePass):")  # the @register_pass line above it
    assert err.startswith(f"{second}:{line}:2: error: cannot load pass plugin: pass 'test-plugin-add-to' is already "
                          f"registered (a pass of the pass plugin '{first}')")
    assert [p.source for p in plugins.loaded_plugins()][-1] == str(first)


def test_a_pass_that_raises_is_located_with_the_plugin_line(tmp_path, capsys):
    path = write(tmp_path, "my_passes.py", PLUGIN)
    src = write(tmp_path, "prog.mlir", PROGRAM)
    out_file = tmp_path / "out.mlir"
    code, out, err = opt(capsys, "--load-pass-plugin", path, src, "--canonicalize", "--test-plugin-crash",
                         "-o", out_file)
    assert code == 1 and not out_file.exists()
    line = PLUGIN.splitlines().index("        return values[3]") + 1
    assert err.strip() == (f"{src}:1:1: error: internal error in pass 'test-plugin-crash': IndexError: list index "
                           f"out of range (raised at {path}:{line}:16)")
    code, out, err = opt(capsys, "--load-pass-plugin", path, src,
                         "--pass-pipeline=builtin.module(func.func(test-plugin-no-divide))", "-o", out_file)
    assert code == 1 and not out_file.exists()
    assert err.strip() == f"{src}:4:8: error: test-plugin-no-divide: a divide"


# -- the README's plugin and the example plugin ----------------------------------------------------------

def _readme_plugin():
    text = (REPO / "README.md").read_text()
    code = [b for b in re.findall(r"```python\n(.*?)\n```", text, re.S) if b.startswith("# my_passes.py")]
    command = [b for b in re.findall(r"```bash\n(.*?)\n```", text, re.S) if "--load-pass-plugin=my_passes.py" in b]
    assert len(code) == 1 and len(command) == 1
    return code[0] + "\n", shlex.split(command[0].replace("\\\n", " "))


def test_the_readme_plugin_runs_as_documented(tmp_path, capsys, monkeypatch):
    code, command = _readme_plugin()
    (tmp_path / "my_passes.py").write_text(code)
    monkeypatch.chdir(tmp_path)
    assert command[0] == "hlokit-opt"
    argv = [str(REPO / a) if a.startswith("examples/") else a for a in command[1:]]
    rc, out, err = opt(capsys, *argv)
    assert rc == 0, err
    assert "@main(" in out
    counts = dict(re.findall(r"^@(\w+): (.*)$", err, re.M))
    assert set(counts) == {"main", "relu", "log_softmax"}
    assert "2 stablehlo.dot_general" in counts["main"]
    # the option, as a flag: a function with more ops is refused at the function, nothing written
    rc, out, err = opt(capsys, "--load-pass-plugin=my_passes.py", REPO / "examples" / "mlp.mlir",
                       "--count-ops=max-ops=5", "-o", tmp_path / "out.mlir")
    assert rc == 1 and not (tmp_path / "out.mlir").exists()
    assert re.search(r"mlp.mlir:\d+:\d+: error: @main has \d+ ops, more than max-ops=5", err)
    assert "count-ops" in opt(capsys, "--load-pass-plugin=my_passes.py", "--help")[1]


DIVIDES = """\
func.func @main(%a: tensor<8xf32>, %b: tensor<8xbf16>, %d: tensor<8xf64>)
    -> (tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf64>, tensor<8xf32>) {
  %c0 = stablehlo.constant dense<0.25> : tensor<8xf32>
  %c1 = stablehlo.constant dense<1.7014118346046923e+38> : tensor<8xf32>
  %c2 = stablehlo.constant dense<-8.0> : tensor<8xbf16>
  %c3 = stablehlo.constant dense<1024.0> : tensor<8xf64>
  %c4 = stablehlo.constant dense<3.0> : tensor<8xf32>
  %0 = stablehlo.divide %a, %c0 : tensor<8xf32>
  %1 = stablehlo.divide %a, %c1 : tensor<8xf32>
  %2 = stablehlo.divide %b, %c2 : tensor<8xbf16>
  %3 = stablehlo.divide %d, %c3 : tensor<8xf64>
  %4 = stablehlo.divide %a, %c4 : tensor<8xf32>
  return %0, %1, %2, %3, %4 : tensor<8xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf64>, tensor<8xf32>
}
"""


def test_the_example_plugin_changes_no_bit():
    """divide_to_multiply rewrites only where x / c == x * (1/c) for every x (2^127: 1/c is subnormal, still
    exact); the interpreter gives bit-identical results on special values before and after."""
    import ml_dtypes

    registry.load_pass_plugin(str(EXAMPLE))
    module = hlokit.parse(DIVIDES)
    run_pipeline(module, "builtin.module(func.func(divide-by-constant-to-multiply),canonicalize)")
    text = str(module)
    assert text.count("stablehlo.multiply") == 4 and text.count("stablehlo.divide") == 1  # 3.0 is left alone
    assert "dense<5.87747175E-39> : tensor<8xf32>" in text  # 2^-127, subnormal
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -3.4e38, 7.0]
    args = [np.array(special, np.float32), np.array(special, ml_dtypes.bfloat16), np.array(special, np.float64)]
    before = hlokit.interpret(DIVIDES, args)
    after = hlokit.interpret(module, args)
    for x, y in zip(before, after):
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
