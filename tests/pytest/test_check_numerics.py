"""Numerical bisection of a pipeline: ``hlokit-opt --check-numerics`` and ``hlokit.bisect`` (issue 38, item 2).

A pass with a deliberate numerical bug (registered here, removed again after each test) sits in the middle of a
10-pass pipeline of hlokit's Python passes and upstream canonicalize / cse; the bisection must name that pass and
the op it rewrote, on the interpreter and on XLA; a clean pipeline passes; tolerances, ``--inputs`` / ``--seed``
and bad options behave.
"""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import hlokit
from hlokit.compare import Tolerance
from hlokit.passes.builder import Emitter, V
from hlokit.passes.registry import PASSES, register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass
from hlokit.tools import hlokit_opt
from hlokit.triage import bisect as bisection

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "check_numerics")

PROGRAM = """\
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4xi32>) {
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %one2 = stablehlo.constant dense<1.0> : tensor<f32>
  %y = stablehlo.dot %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<16xf32>) -> tensor<4x16xf32>
  %z = chlo.broadcast_add %y, %bb : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %s = stablehlo.multiply %one, %one2 : tensor<f32>
  %sb = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
  %h = stablehlo.multiply %z, %sb : tensor<4x16xf32>
  %t = stablehlo.tanh %h : tensor<4x16xf32>
  %u = stablehlo.add %t, %h : tensor<4x16xf32>
  %k = stablehlo.constant dense<100.0> : tensor<4x16xf32>
  %v = stablehlo.multiply %u, %k : tensor<4x16xf32>
  %i = stablehlo.convert %v : (tensor<4x16xf32>) -> tensor<4x16xi32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r = stablehlo.reduce(%i init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x16xi32>, tensor<i32>) -> tensor<4xi32>
  return %u, %r : tensor<4x16xf32>, tensor<4xi32>
}
"""
TANH_LINE = 10  # the line of stablehlo.tanh in PROGRAM

BUG = "test-inexact-tanh"
#: 10 passes: hlokit's Python passes (dot -> dot_general, CHLO, deprecated ops), upstream canonicalize / cse, and
#: the buggy pass 6th.
PIPELINE = ("builtin.module(func.func(canonicalize),stablehlo-legalize-dot-to-dot-general,cse,"
            f"chlo-legalize-to-stablehlo,func.func(canonicalize),{BUG},cse,func.func(canonicalize),"
            "stablehlo-legalize-deprecated-ops,cse)")
CLEAN = PIPELINE.replace(f"{BUG},", "")
FLAGS = ["--canonicalize", "--stablehlo-legalize-dot-to-dot-general", "--cse", "--chlo-legalize-to-stablehlo",
         "--canonicalize", f"--{BUG}", "--cse", "--canonicalize", "--stablehlo-legalize-deprecated-ops", "--cse"]


class InexactTanh(TemplatePass):
    """``tanh(x)`` -> ``(2 * logistic(2x) - 1) * 1.0001``: the identity, with a deliberate 1e-4 relative error."""

    argument = BUG
    summary = "test pass with a deliberate numerical bug"
    illegal_ops = frozenset({"stablehlo.tanh"})
    element_types = ("f32",)

    def attributes(self, op) -> tuple:
        return ()

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        x = operands[0]
        return (e.logistic(x * 2.0) * 2.0 - 1.0) * 1.0001


@pytest.fixture
def bug_pass():
    register_pass(InexactTanh)
    try:
        yield InexactTanh
    finally:
        PASSES.pop(BUG, None)


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "program.mlir"
    path.write_text(PROGRAM)
    return str(path)


def _module(text=PROGRAM, name="program.mlir"):
    return hlokit.parse(text, context=hlokit.make_context(), source_name=name)


def _opt(capsys, *argv):
    rc = hlokit_opt.main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


# -- the bug is found -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ["interpreter", "xla"])
def test_bisect_names_the_buggy_pass_and_op(bug_pass, engine, tmp_path):
    module = _module()
    original = str(module)
    r = hlokit.bisect(module, PIPELINE, engine=engine, directory=str(tmp_path / "dir"))
    assert str(module) == original  # (not in place by default)
    assert len(r.passes) == 10 and r.passes[5] == BUG and r.passes[0] == "func.func(canonicalize)"
    assert r.departed and r.failed_pass == BUG and r.pass_index == 6 and r.checked == 6
    assert r.output == 0 and not r.comparison.ok and r.comparison.max_ulp > 4
    assert r.op is not None, r.op_note
    assert (r.op.name, r.op.original, r.op.line) == ("stablehlo.multiply", "stablehlo.tanh", TANH_LINE)
    before, after = open(r.before_path).read(), open(r.after_path).read()
    assert os.path.dirname(r.before_path) == str(tmp_path / "dir")
    assert "stablehlo.tanh" in before and "stablehlo.tanh" not in after and "stablehlo.logistic" in after
    assert sorted(os.listdir(r.directory)) == ["06-after.mlir", "06-before.mlir"]  # (probe files removed)
    text = r.diagnostic("program.mlir").render()
    assert text.startswith(f"program.mlir:{TANH_LINE}:8: error: --check-numerics: pass '{BUG}' (6 of 10) "
                           f"changes output 0 on {engine}")
    assert "first departing op: 'stablehlo.multiply' result 0, was 'stablehlo.tanh'" in text


@pytest.mark.parametrize("engine", ["interpreter", "xla"])
def test_check_numerics_flag_reports_the_pass_and_op(bug_pass, engine, program, tmp_path, capsys):
    out_file = tmp_path / "out.mlir"
    rc, out, err = _opt(capsys, program, *FLAGS, f"--check-numerics={engine}", "--check-numerics-dir",
                        str(tmp_path / "ir"), "-o", str(out_file))
    assert rc == 1 and out == "" and not out_file.exists()
    assert f"program.mlir:{TANH_LINE}:8: error: --check-numerics: pass '{BUG}' (6 of 10) changes output 0 " \
           f"on {engine} beyond the default tolerance (floats 4 ULPs of the element or of the output's largest magnitude, integers exact)" in err
    assert f"program.mlir:{TANH_LINE}:8: note: first departing op: 'stablehlo.multiply'" in err
    assert f"{tmp_path / 'ir' / '06-before.mlir'}, {tmp_path / 'ir' / '06-after.mlir'}" in err
    assert "Traceback" not in err


def test_check_numerics_in_a_nested_pass_pipeline(bug_pass, program, capsys):
    rc, out, err = _opt(capsys, program, "--check-numerics",
                        f"--pass-pipeline=builtin.module(cse,func.func(canonicalize,{BUG},cse))")
    assert rc == 1
    assert f"pass 'func.func({BUG})' (3 of 4)" in err
    # the default directory: a new temporary one, printed
    directory = os.path.dirname(err.split("IR before and after the pass: ")[1].split(",")[0])
    assert os.path.basename(directory).startswith("hlokit-check-numerics-")
    assert sorted(os.listdir(directory)) == ["03-after.mlir", "03-before.mlir"]
    shutil.rmtree(directory)


# -- no departure ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ["interpreter", "xla"])
def test_a_clean_pipeline_passes(engine, program, capsys):
    r = hlokit.bisect(_module(), CLEAN, engine=engine)
    assert not r.departed and r.checked == 9 and r.directory is None and r.op is None
    rc, out, err = _opt(capsys, program, "--pass-pipeline=" + CLEAN, f"--check-numerics={engine}")
    plain_rc, plain, _ = _opt(capsys, program, "--pass-pipeline=" + CLEAN)
    assert rc == plain_rc == 0 and out == plain and "stablehlo.dot_general" in out
    assert f"program.mlir: note: numerics checked after 9 passes on {engine}" in err


def test_in_place_and_the_module_after_the_pipeline():
    module = _module()
    r = hlokit.bisect(module, CLEAN, in_place=True)
    assert r.module is module and "chlo." not in str(module)


# -- tolerances -----------------------------------------------------------------------------------------------

def test_tolerances(bug_pass, program, tmp_path, capsys):
    # the bug is ~1e-4 relative: within 1e-3 of the outputs' scale, beyond 1e-6
    assert not hlokit.bisect(_module(), PIPELINE, tolerance=Tolerance(rtol=1e-3)).departed
    r = hlokit.bisect(_module(), PIPELINE, tolerance=Tolerance(rtol=1e-6), directory=str(tmp_path))
    assert r.departed and r.comparison.tolerance.rtol == 1e-6
    assert hlokit.bisect(_module(), PIPELINE, tolerance=Tolerance(max_ulp=1e6)).failed_pass is None
    rc, _, err = _opt(capsys, program, *FLAGS, "--check-numerics", "--rtol", "1e-3", "--atol", "0")
    assert rc == 0 and "within --rtol 0.001, --atol 0" in err
    rc, _, err = _opt(capsys, program, *FLAGS, "--check-numerics", "--max-ulp", "2", "--check-numerics-dir",
                      str(tmp_path))
    assert rc == 1 and "beyond --max-ulp 2" in err


def test_default_tolerance_is_exact_for_integers_and_a_few_ulps_for_floats():
    assert bisection._tolerance_for(np.int32, None) == Tolerance(max_ulp=0)
    assert bisection._tolerance_for(np.bool_, None) == Tolerance(max_ulp=0)
    assert bisection._tolerance_for(np.float32, None) == Tolerance(max_ulp=bisection.DEFAULT_MAX_ULP)
    given = Tolerance(rtol=1e-3)
    assert bisection._tolerance_for(np.int8, given) is given


def test_integer_output_departs_under_a_float_tolerance(bug_pass, tmp_path):
    """Output 1 (an i32 sum of converted values) changes too; with output 0 held to a loose bound only an
    exact integer comparison would miss nothing: the int output is checked exactly when no bound is given."""
    text = PROGRAM.replace("return %u, %r", "return %r, %r").replace(
        "-> (tensor<4x16xf32>, tensor<4xi32>)", "-> (tensor<4xi32>, tensor<4xi32>)").replace(
        ": tensor<4x16xf32>, tensor<4xi32>\n}", ": tensor<4xi32>, tensor<4xi32>\n}")
    r = hlokit.bisect(_module(text), PIPELINE, inputs=_inputs(scale=3.0), directory=str(tmp_path))
    assert r.departed and r.output == 0 and r.comparison.tolerance == Tolerance(max_ulp=0)


# -- inputs ---------------------------------------------------------------------------------------------------

def _inputs(scale=1.0, zero=False):
    rng = np.random.default_rng(1)
    shapes = [(4, 8), (8, 16), (16,)]
    return [np.zeros(s, np.float32) if zero else (rng.standard_normal(s) * scale).astype(np.float32)
            for s in shapes]


def test_inputs_and_seed(bug_pass, program, tmp_path, capsys):
    # tanh(0) = 0: with zero inputs the bug does not show
    zeros = _inputs(zero=True)
    assert not hlokit.bisect(_module(), PIPELINE, zeros).departed
    assert not hlokit.bisect(_module(), PIPELINE, {f"arg_{i}": a for i, a in enumerate(zeros)}).departed
    npz = tmp_path / "zeros.npz"
    np.savez(npz, **{f"arg_{i}": a for i, a in enumerate(zeros)})
    rc, _, err = _opt(capsys, program, *FLAGS, "--check-numerics", "--inputs", str(npz))
    assert rc == 0 and "numerics checked after 10 passes" in err
    rc, _, err = _opt(capsys, program, *FLAGS, "--check-numerics", "--seed", "7", "--check-numerics-dir",
                      str(tmp_path / "ir"))
    assert rc == 1 and f"pass '{BUG}'" in err
    # seeded inputs are hlokit-run's (--seed N gives both tools the same arrays)
    from hlokit.backend import signature
    from hlokit.tools.hlokit_run import random_input

    specs = signature(_module())[0]
    rng = np.random.default_rng(7)
    for a, b in zip(bisection.seeded_inputs(_module(), 7), [random_input(s, rng) for s in specs]):
        np.testing.assert_array_equal(a, b)
    r = hlokit.bisect(_module(), CLEAN, seed=7)
    for a, b in zip(r.inputs, bisection.seeded_inputs(_module(), 7)):
        np.testing.assert_array_equal(a, b)


def test_bad_inputs_file(program, tmp_path, capsys):
    npz = tmp_path / "short.npz"
    np.savez(npz, arg_0=np.zeros((4, 8), np.float32))
    out_file = tmp_path / "out.mlir"
    rc, out, err = _opt(capsys, program, "--cse", "--check-numerics", "--inputs", str(npz), "-o", str(out_file))
    assert rc == 1 and not out_file.exists() and f"{npz}: error: --inputs: missing input(s)" in err
    with pytest.raises(hlokit.HlokitError, match="--check-numerics: missing input"):
        hlokit.bisect(_module(), CLEAN, {"arg_0": np.zeros((4, 8), np.float32)})


# -- bad options and programs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--check-numerics=gpu"], "error: --check-numerics: unknown engine 'gpu' (expected interpreter or xla)"),
    (["--check-numerics", "--max-ulp", "-1"], "error: --max-ulp: expected a finite number >= 0, got -1.0"),
    (["--check-numerics", "--rtol", "nan"], "error: --rtol: expected a finite number >= 0, got nan"),
    (["--check-numerics", "--max-ulp", "1", "--atol", "0"], "error: --max-ulp cannot be combined with --rtol / --atol"),
    (["--check-numerics", "--seed", "-3"], "error: --seed: expected an integer >= 0, got -3"),
    (["--check-numerics", "--seed", "1", "--inputs", "x.npz"], "error: --inputs and --seed cannot be combined"),
    (["--seed", "1"], "error: --seed: only used with --check-numerics, which is not given"),
    (["--max-ulp", "1", "--check-numerics-dir", "d"], "error: --max-ulp, --check-numerics-dir: only used with"),
    (["--check-numerics", "--max-ulp", "many"], "error: argument --max-ulp: invalid float value: 'many'"),
])
def test_bad_option_values(argv, message, program, tmp_path, capsys):
    out_file = tmp_path / "out.mlir"
    rc, out, err = _opt(capsys, program, "--cse", *argv, "-o", str(out_file))
    assert rc == 1 and out == "" and not out_file.exists()
    assert message in err and "Traceback" not in err


def test_check_numerics_dir_that_is_a_file(program, tmp_path, capsys):
    rc, _, err = _opt(capsys, program, "--cse", "--check-numerics", "--check-numerics-dir", program)
    assert rc == 1 and f"{program}: error: --check-numerics-dir: exists and is not a directory" in err


@pytest.mark.parametrize("engine, message", [
    ("interpreter", ":2:8: error: --check-numerics: the input program does not run on interpreter: unsupported "
                    "custom_call @no_such_target"),
    ("xla", ": error: --check-numerics: the input program does not run on xla: XLA could not compile the program"),
])
def test_an_input_that_does_not_run(engine, message, tmp_path, capsys):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = stablehlo.custom_call @no_such_target(%a) : (tensor<4xf32>) -> tensor<4xf32>\n"
                    "  return %0 : tensor<4xf32>\n}\n")
    out_file = tmp_path / "out.mlir"
    rc, out, err = _opt(capsys, str(path), "--cse", f"--check-numerics={engine}", "-o", str(out_file))
    assert rc == 1 and not out_file.exists() and "bad.mlir" + message in err


def test_dynamic_arguments_need_shapes(tmp_path, capsys):
    path = tmp_path / "dyn.mlir"
    path.write_text("func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {\n"
                    "  %0 = stablehlo.exponential %a : tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n")
    rc, _, err = _opt(capsys, str(path), "--cse", "--check-numerics")
    assert rc == 1 and "--check-numerics: argument 0 of @main has dynamic shape" in err
    rc, _, err = _opt(capsys, str(path), "--cse", "--check-numerics", "--refine-arguments=tensor<5xf32>")
    assert rc == 0 and "numerics checked after 1 passes" in err


class BreaksTanh(TemplatePass):
    """``tanh`` -> a custom call no engine runs: the module no longer runs after this pass."""

    argument = "test-unrunnable-tanh"
    summary = "test pass that makes the program unrunnable"
    illegal_ops = frozenset({"stablehlo.tanh"})

    def attributes(self, op) -> tuple:
        return ()

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        return e.custom_call("no_such_kernel", operands, [(operands[0].shape, operands[0].t)])[0]


def test_a_pass_that_makes_the_program_unrunnable(program, tmp_path, capsys):
    register_pass(BreaksTanh)
    try:
        r = hlokit.bisect(_module(), "builtin.module(cse,test-unrunnable-tanh,cse)", directory=str(tmp_path))
        assert r.failed_pass == "test-unrunnable-tanh" and r.output is None
        assert "no_such_kernel" in r.error and r.op is None
        rc, _, err = _opt(capsys, program, "--cse", "--test-unrunnable-tanh", "--check-numerics",
                          "--check-numerics-dir", str(tmp_path))
        assert rc == 1 and f"program.mlir:{TANH_LINE}:8: error: --check-numerics: after pass" in err
        assert "after pass 'test-unrunnable-tanh' (2 of 2) the module no longer runs on interpreter" in err
    finally:
        PASSES.pop("test-unrunnable-tanh", None)


def test_bad_pipeline_is_reported_before_anything_runs():
    with pytest.raises(hlokit.HlokitError, match="no-such-pass"):
        hlokit.bisect(_module(), "builtin.module(cse,no-such-pass)")
    with pytest.raises(ValueError, match="unknown engine"):
        hlokit.bisect(_module(), "builtin.module(cse)", engine="tpu")


# -- leaf passes ----------------------------------------------------------------------------------------------

def test_leaf_passes_split_nesting_and_named_pipelines():
    steps = bisection.leaf_passes("builtin.module(func.func(canonicalize,cse),inline,stablehlo-lower-to-core)")
    labels = [s.label for s in steps]
    assert labels[:3] == ["func.func(canonicalize)", "func.func(cse)", "inline"]
    assert labels[3] == "stablehlo-legalize-lapack-custom-calls" and labels[-2:] == ["canonicalize", "cse"]
    assert len(labels) == 3 + 14


# -- the example ----------------------------------------------------------------------------------------------

def test_the_example_plugin_is_found(tmp_path, capsys):
    from hlokit.passes.plugins import unload_pass_plugin

    plugin = os.path.join(EXAMPLES, "exp2_expansion.py")
    program = os.path.join(EXAMPLES, "program.mlir")
    flags = ["--canonicalize", "--stablehlo-legalize-deprecated-ops", "--cse", "--chlo-legalize-to-stablehlo",
             "--canonicalize", "--example-expand-exponential", "--cse", "--canonicalize", "--symbol-dce", "--cse"]
    try:
        rc, _, err = _opt(capsys, f"--load-pass-plugin={plugin}", program, *flags, "--check-numerics",
                          "--check-numerics-dir", str(tmp_path))
    finally:
        unload_pass_plugin(plugin)
    assert rc == 1
    assert ("program.mlir:16:8: error: --check-numerics: pass 'example-expand-exponential' (6 of 10) "
            "changes output 0 on interpreter") in err
    assert "note: first departing op: 'stablehlo.power' result 0, was 'stablehlo.exponential'" in err
