"""Pass registry and pipelines: Python passes inside MLIR's PassManager, mixed with upstream C++ passes."""

from __future__ import annotations

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.diagnostics import PassError
from hlokit.passes import (
    Option,
    Pass,
    PatternPass,
    PipelineError,
    all_passes,
    build_pass_manager,
    fail,
    parse_pipeline,
    register_pass,
    run_pipeline,
)
from hlokit.passes import registry

PROGRAM = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2xf32> {
  %0 = stablehlo.dot %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  func.return %0 : tensor<2xf32>
}
func.func private @unused() {
  func.return
}
"""


@pytest.fixture
def temp_pass():
    """Register passes for one test only."""
    added = []

    def add(cls):
        registry.PASSES.pop(cls.argument, None)
        register_pass(cls)
        added.append(cls.argument)
        return cls

    saved = dict(registry.PASSES)
    yield add
    registry.PASSES.clear()
    registry.PASSES.update(saved)


def test_registry_lists_builtin_passes():
    passes = all_passes()
    dot = passes["stablehlo-legalize-dot-to-dot-general"]
    assert dot.summary and dot.anchor == "func.func"


def test_parse_pipeline_syntax():
    els = parse_pipeline("builtin.module(func.func(canonicalize{max-iterations=3 top-down=false}, my-pass),inline)")
    assert len(els) == 1 and els[0].name == "builtin.module"
    inner = els[0].children
    assert [e.name for e in inner] == ["func.func", "inline"]
    assert inner[0].children[0].options == "max-iterations=3 top-down=false"
    assert els[0].text() == "builtin.module(func.func(canonicalize{max-iterations=3 top-down=false},my-pass),inline)"
    for bad in ("builtin.module(", "a{b", "a)", ""):
        with pytest.raises(PipelineError):
            parse_pipeline(bad)


def test_mixed_pipeline_runs_python_and_cpp_passes(ctx):
    m = hlokit.parse(PROGRAM, context=ctx)
    run_pipeline(m, "builtin.module(func.func(canonicalize,stablehlo-legalize-dot-to-dot-general,cse),symbol-dce)")
    out = hlokit.print_module(m)
    assert "stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0]" in out
    assert "stablehlo.dot %" not in out
    assert "@unused" not in out  # symbol-dce (C++) ran after the Python pass


def test_python_pass_wins_over_upstream_pass_of_same_name(ctx, temp_pass):
    ran = []

    @temp_pass
    class NotSymbolDce(Pass):
        argument = "symbol-dce"  # an upstream C++ pass has this flag too
        summary = "test pass shadowing symbol-dce"
        anchor = "builtin.module"

        def run_on_operation(self, op):
            ran.append(op.name)

    for pipeline in ("builtin.module(symbol-dce)", "symbol-dce"):
        ran.clear()
        m = hlokit.parse(PROGRAM, context=ctx)
        run_pipeline(m, pipeline)
        assert ran == ["builtin.module"]
        assert "@unused" in hlokit.print_module(m)  # the C++ symbol-dce did not run


def test_python_pass_options_and_anchor_walk(ctx, temp_pass):
    seen = []

    @temp_pass
    class CountFuncs(Pass):
        argument = "test-count-funcs"
        summary = "records the func.func ops it runs on"
        anchor = "func.func"
        options = (Option("tag", str, "none"), Option("limit", int, 0))

        def run_on_operation(self, op):
            seen.append((op.attributes["sym_name"].value, self.tag, self.limit))

    m = hlokit.parse(PROGRAM, context=ctx)
    run_pipeline(m, "builtin.module(test-count-funcs{tag=x limit=2})")
    assert seen == [("main", "x", 2), ("unused", "x", 2)]
    seen.clear()
    run_pipeline(m, "builtin.module(func.func(test-count-funcs))")
    assert seen == [("main", "none", 0), ("unused", "none", 0)]
    with pytest.raises(PipelineError, match="no such option 'nope'"):
        run_pipeline(m, "builtin.module(test-count-funcs{nope=1})")
    with pytest.raises(PipelineError, match="invalid value 'x' for option 'limit'"):
        run_pipeline(m, "builtin.module(test-count-funcs{limit=x})")


def test_failing_pass_reports_location_and_leaves_ir_verified(ctx, temp_pass):
    @temp_pass
    class Refuse(Pass):
        argument = "test-refuse-dot"
        summary = "fails on stablehlo.dot"
        anchor = "func.func"

        def run_on_operation(self, op):
            for inner in op.regions[0].blocks[0].operations:
                if inner.operation.name == "stablehlo.dot":
                    raise fail("stablehlo.dot is not supported here", inner)

    m = hlokit.parse(PROGRAM, context=ctx, source_name="p.mlir")
    before = hlokit.print_module(m)
    with pytest.raises(hlokit.PassError) as info:
        run_pipeline(m, "builtin.module(test-refuse-dot)")
    d = info.value.diagnostics[0]
    assert (d.file, d.line, d.col) == ("p.mlir", 3, 8)
    assert "stablehlo.dot is not supported here" in d.message
    hlokit.verify(m)
    assert hlokit.print_module(m) == before


def test_crashing_pass_becomes_a_diagnostic(ctx, temp_pass):
    @temp_pass
    class Crash(Pass):
        argument = "test-crash"
        summary = "raises a Python exception"
        anchor = "func.func"

        def run_on_operation(self, op):
            raise ZeroDivisionError("boom")

    m = hlokit.parse(PROGRAM, context=ctx)
    with pytest.raises(hlokit.PassError, match="internal error in pass 'test-crash': ZeroDivisionError: boom"):
        run_pipeline(m, "builtin.module(test-crash)")


def test_a_crash_inside_a_walk_callback_is_one_line(ctx, temp_pass):
    @temp_pass
    class CrashInWalk(Pass):
        argument = "test-crash-in-walk"
        summary = "raises inside an Operation.walk callback"
        anchor = "func.func"

        def run_on_operation(self, op):
            def visit(o):
                raise ZeroDivisionError("boom in walk")

            op.walk(visit)

    m = hlokit.parse(PROGRAM, context=ctx)
    with pytest.raises(hlokit.PassError) as info:
        run_pipeline(m, "builtin.module(test-crash-in-walk,canonicalize)")  # (a C++ pass: one PassManager)
    text = str(info.value)
    assert "internal error in pass 'test-crash-in-walk': " in text and "boom in walk" in text, text
    assert "Traceback" not in text and len(text.strip().splitlines()) == 1, text


def test_verification_after_each_pass_catches_broken_ir(ctx, temp_pass):
    @temp_pass
    class Breaks(Pass):
        argument = "test-break-ir"
        summary = "sets a wrong result type"
        anchor = "func.func"

        def run_on_operation(self, op):
            if op.attributes["sym_name"].value != "main":
                return
            ret = op.regions[0].blocks[0].operations[1]
            with ir.InsertionPoint(ret), ret.location:
                c = ir.Operation.create("stablehlo.constant", results=[ir.RankedTensorType.get([5], ir.F32Type.get())],
                                        attributes={"value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([5], ir.F32Type.get()), ir.FloatAttr.get_f32(1.0))})
            ret.operands[0] = c.result

    m = hlokit.parse(PROGRAM, context=ctx)
    with pytest.raises(hlokit.PassError, match="doesn't match function result type"):
        run_pipeline(m, "builtin.module(test-break-ir)")


def test_unknown_pass_and_restricted_upstream_pass(ctx):
    with pytest.raises(PipelineError, match="'no-such-pass' does not refer to a registered pass"):
        build_pass_manager(parse_pipeline("no-such-pass"), context=ctx)
    # func.func-restricted upstream passes given as flags nest implicitly, as in mlir-opt
    build_pass_manager(parse_pipeline("stablehlo-legalize-deprecated-ops"), context=ctx, implicit_nesting=True)


def test_builtin_passes_come_from_the_explicit_module_list():
    assert "hlokit.passes.chlo_legalize_to_stablehlo" in registry.PASS_MODULES
    registry.load_builtin_passes()
    modules = {cls.__module__ for cls in registry.PASSES.values()}
    assert {m for m in modules if m.startswith("hlokit.passes.")} <= set(registry.PASS_MODULES)
    import inspect

    assert "pkgutil" not in inspect.getsource(registry)


def test_register_pass_refuses_a_duplicate_argument(temp_pass):
    class First(Pass):
        argument = "test-duplicate-argument"

    class Second(Pass):
        argument = "test-duplicate-argument"

    temp_pass(First)
    with pytest.raises(ValueError, match="registered twice"):
        register_pass(Second)
    with pytest.raises(ValueError, match="registered twice"):
        register_pass(First)
    assert registry.PASSES["test-duplicate-argument"] is First


CONVERSION_PROGRAM = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.abs %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def _negate_to_subtract(op, rewriter):
    with rewriter.ip, op.location:
        t = op.results[0].type
        zero = ir.Operation.create("stablehlo.constant", results=[t],
                                   attributes={"value": ir.Attribute.parse(f"dense<0.0> : {t}")})
        new = ir.Operation.create("stablehlo.subtract", results=[t], operands=[zero.result, op.operands[0]])
    rewriter.replace_op(op, new)


def _conversion_pass(mode, illegal):
    class NegateToSubtract(PatternPass):
        argument = "test-negate-to-subtract"
        conversion = mode
        illegal_ops = illegal
        legal_dialects = ("stablehlo", "func")

        def populate(self, patterns):
            patterns.add("stablehlo.negate", _negate_to_subtract)

    return NegateToSubtract


@pytest.mark.parametrize("mode", ["partial", "full"])
def test_pattern_pass_dialect_conversion(ctx, temp_pass, mode):
    temp_pass(_conversion_pass(mode, ("stablehlo.negate",)))
    module = hlokit.parse(CONVERSION_PROGRAM, context=ctx)
    run_pipeline(module, "builtin.module(func.func(test-negate-to-subtract))")
    text = str(module)
    assert "stablehlo.negate" not in text and "stablehlo.subtract" in text
    (r,) = hlokit.interpret(module, [np.array([1, -2, 3, -4], np.float32)])
    np.testing.assert_array_equal(r, [1, 2, 3, 4])


def test_pattern_pass_conversion_reports_failed_to_legalize_at_the_op(ctx, temp_pass):
    temp_pass(_conversion_pass("partial", ("stablehlo.negate", "stablehlo.abs")))
    module = hlokit.parse(CONVERSION_PROGRAM, context=ctx, source_name="in.mlir")
    with pytest.raises(PassError) as info:
        run_pipeline(module, "builtin.module(func.func(test-negate-to-subtract))")
    assert "in.mlir:3:8: error: failed to legalize operation 'stablehlo.abs'" in str(info.value)


@pytest.fixture
def temp_pipelines():
    """Register named pipelines for one test only."""
    registry.load_builtin_passes()
    saved = dict(registry.PIPELINES)
    yield registry.register_pipeline
    registry.PIPELINES.clear()
    registry.PIPELINES.update(saved)


def test_named_pipeline_expands_in_flags_and_inside_pass_pipeline(ctx, temp_pipelines, tmp_path):
    """A registered pipeline name stands for its passes (Python and upstream mixed) wherever a pass may
    appear: at the top level, nested under an op anchor, and as a hlokit-opt flag."""
    temp_pipelines("test-dot-then-dce", "dot to dot_general, then symbol-dce",
                   "stablehlo-legalize-dot-to-dot-general,symbol-dce")
    for pipeline in ("builtin.module(test-dot-then-dce)", "builtin.module(canonicalize,test-dot-then-dce,cse)"):
        module = hlokit.parse(PROGRAM, context=ctx)
        run_pipeline(module, pipeline)
        text = str(module)
        assert "stablehlo.dot_general" in text and "stablehlo.dot " not in text
        assert "@unused" not in text  # symbol-dce ran
    pm = build_pass_manager(parse_pipeline("builtin.module(test-dot-then-dce)"), context=ctx)
    assert "stablehlo-legalize-dot-to-dot-general" in str(pm) and "symbol-dce" in str(pm)


def test_named_pipeline_errors(ctx, temp_pipelines):
    temp_pipelines("test-named", "a pipeline", "cse")
    with pytest.raises(ValueError, match="registered twice"):
        temp_pipelines("test-named", "again", "cse")
    with pytest.raises(ValueError, match="registered twice"):
        temp_pipelines("stablehlo-legalize-dot-to-dot-general", "a pass's name", "cse")
    with pytest.raises(PipelineError, match="pipeline 'test-named' takes no options"):
        build_pass_manager(parse_pipeline("builtin.module(test-named{x=1})"), context=ctx)
    temp_pipelines("test-loop", "includes itself", "cse,test-loop")
    with pytest.raises(PipelineError, match="pipeline 'test-loop' includes itself"):
        build_pass_manager(parse_pipeline("builtin.module(test-loop)"), context=ctx)
