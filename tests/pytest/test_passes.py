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


def test_python_passes_run_with_the_collector_paused_and_its_state_given_back(ctx, temp_pass):
    """A Python pass runs with Python's cyclic collector paused (issue 40: collections of a growing heap); the
    state found before is given back after a run, a refusal and a crash alike."""
    import gc

    seen = []

    @temp_pass
    class Look(Pass):
        argument = "test-look-at-gc"
        summary = "records gc.isenabled(), then refuses or crashes when asked"
        anchor = "func.func"
        options = (Option("mode", str, "ok", "ok, refuse or crash"),)

        def run_on_operation(self, op):
            seen.append(gc.isenabled())
            if self.mode == "refuse":
                raise fail("refused", op)
            if self.mode == "crash":
                raise ZeroDivisionError("boom")

    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            for mode in ("ok", "refuse", "crash"):
                m = hlokit.parse(PROGRAM, context=ctx)
                if mode == "ok":
                    run_pipeline(m, f"builtin.module(func.func(test-look-at-gc{{mode={mode}}}))")
                else:
                    with pytest.raises(hlokit.PassError):
                        run_pipeline(m, f"builtin.module(func.func(test-look-at-gc{{mode={mode}}}))")
                assert gc.isenabled() is enabled, mode
        finally:
            gc.enable()
    assert len(seen) >= 6 and not any(seen)


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


TEMPLATE_PROGRAM = """func.func @main(%a: tensor<4xf32>, %b: tensor<2xf32>, %p: tensor<i1>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = stablehlo.negate %b : tensor<2xf32>
  %3 = "stablehlo.if"(%p) ({
    %4 = stablehlo.negate %1 : tensor<4xf32>
    stablehlo.return %4 : tensor<4xf32>
  }, {
    stablehlo.return %1 : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}
"""


def _negate_pass(builds: list, types=("f32",)):
    """A TemplatePass replacing ``stablehlo.negate`` by ``0 - x`` on the element types ``types``; every
    template it builds is appended to ``builds``."""
    from hlokit.passes.template_pass import TemplatePass

    class NegateToSubtract(TemplatePass):
        argument = "test-negate-to-subtract"
        illegal_ops = frozenset({"stablehlo.negate"})
        element_types = types

        def build(self, e, operands, info):
            builds.append(info.operand_types)
            (x,) = operands
            return e.const(0.0, x) - x

    return NegateToSubtract


def test_template_pass_rewrites_every_op_and_reuses_templates(ctx, temp_pass):
    """Every illegal op, nested regions included, is replaced; one template per signature."""
    builds = []
    temp_pass(_negate_pass(builds))
    module = hlokit.parse(TEMPLATE_PROGRAM, context=ctx)
    run_pipeline(module, "builtin.module(test-negate-to-subtract)")
    text = str(module)
    assert "stablehlo.negate" not in text and text.count("stablehlo.subtract") == 4
    assert sorted(builds) == [("tensor<2xf32>",), ("tensor<4xf32>",)]
    a, b = np.array([1, -2, 3, -4], np.float32), np.array([5, 6], np.float32)
    (r,) = hlokit.interpret(module, [a, b, np.array(True)])
    np.testing.assert_array_equal(r, -a)


def test_template_pass_is_all_or_nothing_with_a_located_error(ctx, temp_pass):
    """A refused op (here an element type outside ``element_types``) fails the pass at the op before any
    op is rewritten, across every anchor (function) of the run."""
    builds = []
    temp_pass(_negate_pass(builds))
    program = TEMPLATE_PROGRAM + """func.func @other(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = stablehlo.negate %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
"""
    module = hlokit.parse(program, context=ctx, source_name="in.mlir")
    before = str(module)
    for pipeline in ("builtin.module(test-negate-to-subtract)", "builtin.module(func.func(test-negate-to-subtract))"):
        with pytest.raises(PassError) as info:
            run_pipeline(module, pipeline)
        assert str(info.value).startswith("in.mlir:14:8: error: 'stablehlo.negate' on element type 'f64' is not "
                                          "supported by test-negate-to-subtract (supported: f32)")
        assert str(module) == before


def test_template_pass_maps_a_builder_refusal_to_a_located_error(ctx, temp_pass):
    """UnsupportedError raised by ``build`` becomes a PassError at the op, prefixed with the op name."""
    from hlokit.passes.builder import UnsupportedError

    class Refuses(_negate_pass([])):
        def build(self, e, operands, info):
            if info.operand_shapes[0] == [2]:
                raise UnsupportedError("no expansion for two elements")
            return super().build(e, operands, info)

    temp_pass(Refuses)
    module = hlokit.parse(TEMPLATE_PROGRAM, context=ctx, source_name="in.mlir")
    before = str(module)
    with pytest.raises(PassError) as info:
        run_pipeline(module, "builtin.module(test-negate-to-subtract)")
    assert str(info.value).startswith("in.mlir:4:8: error: 'stablehlo.negate': no expansion for two elements")
    assert str(module) == before


def test_is_illegal_reads_op_names_and_custom_call_targets(ctx):
    class Removes(Pass):
        argument = "test-removes"
        illegal_ops = frozenset({"stablehlo.negate"})
        illegal_custom_calls = frozenset({"my_target"})

    module = hlokit.parse("""func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.custom_call @my_target(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.custom_call @other_target(%1) : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.abs %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}
""", context=ctx)
    ops = list(module.body.operations[0].regions[0].blocks[0].operations)
    assert [Removes.is_illegal(op) for op in ops] == [True, True, False, False, False]
    assert not Pass.is_illegal(ops[0])


def test_every_registered_pass_declares_what_it_removes():
    """Every registered pass is a legalization and declares the ops (or custom call targets) it removes,
    as frozensets of full op names that the program-preparation code can read without running it."""
    for argument, cls in all_passes().items():
        assert isinstance(cls.illegal_ops, frozenset) and isinstance(cls.illegal_custom_calls, frozenset), argument
        assert cls.illegal_ops or cls.illegal_custom_calls, f"pass '{argument}' declares no illegal op"
        assert all("." in name for name in cls.illegal_ops), argument


def test_few_passes_keep_a_driver_of_their_own():
    """Legalizations are TemplatePasses (or MLIR pattern passes); at most 3 keep their own driver, and each
    of those says why in its docstring."""
    from hlokit.passes.registry import PatternPass
    from hlokit.passes.template_pass import TemplatePass

    own = {a: c for a, c in all_passes().items() if not issubclass(c, (TemplatePass, PatternPass))}
    assert len(own) <= 3, sorted(own)
    for argument, cls in own.items():
        assert "driver of its own" in (cls.__doc__ or ""), argument


def test_declared_illegal_ops_of_the_legalizations():
    passes = all_passes()
    from hlokit.passes.chlo import TABLE

    assert passes["chlo-legalize-to-stablehlo"].illegal_ops == frozenset(TABLE)
    assert passes["stablehlo-expand-cholesky"].illegal_ops == {"stablehlo.cholesky"}
    assert passes["stablehlo-legalize-dot-to-dot-general"].illegal_ops == {"stablehlo.dot"}
    assert {"stablehlo.einsum", "stablehlo.dot", "stablehlo.create_token"} <= (
        passes["stablehlo-legalize-deprecated-ops"].illegal_ops)
    assert {"shape.shape_of", "tensor.dim", "arith.addi"} <= passes["shape-legalize-to-stablehlo"].illegal_ops


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


def test_flag_pipelines_nest_function_passes_pass_by_pass():
    """As mlir-opt nests pass flags: a func.func-restricted upstream pass goes into func.func(...) with its
    function-level neighbours; module passes before and after stay at the top, each added once."""
    from hlokit.passes.pipeline import PipelineElement

    ctx = hlokit.make_context()
    flags = ["stablehlo-refine-shapes", "stablehlo-check-shape-assertions", "stablehlo-canonicalize-dynamism",
             "symbol-dce"]
    pm = build_pass_manager([PipelineElement(f) for f in flags], context=ctx, implicit_nesting=True)
    text = str(pm)
    assert text.startswith("builtin.module(stablehlo-refine-shapes,func.func(stablehlo-check-shape-assertions")
    assert text.endswith("stablehlo-canonicalize-dynamism),symbol-dce)")
    assert text.count("stablehlo-refine-shapes") == 1
    with pytest.raises(PipelineError, match="Can't add pass"):  # an explicit pipeline is not nested for you
        build_pass_manager([PipelineElement(f) for f in flags], context=ctx)
    with pytest.raises(PipelineError, match="'no-such-pass' does not refer to a registered pass"):
        build_pass_manager([PipelineElement(f) for f in [*flags, "no-such-pass"]], context=ctx, implicit_nesting=True)
