"""``hlokit.prepare`` (:mod:`hlokit.passes.prepare`): one path that turns a parsed program into what an engine
runs, derived from what the passes declare they remove; and ``hlokit-run``'s use of it."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.interpreter.registry import CUSTOM_CALLS, OPS
from hlokit.passes import prepare as prep
from hlokit.passes import registry
from hlokit.passes.registry import Pass, get_pass, register_pass
from hlokit.tools import hlokit_run

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").rglob("*.mlir"))
LAPACK = "stablehlo-legalize-lapack-custom-calls"
QUANT = "stablehlo-legalize-quant-to-math"


def _id(p: pathlib.Path) -> str:
    return str(p.relative_to(REPO / "examples"))


def _parse(path: pathlib.Path) -> ir.Module:
    return hlokit.parse(path.read_text(), context=hlokit.make_context(), source_name=str(path))


def _custom_calls(module: ir.Module) -> list[str]:
    found = []

    def visit(op):
        if op.name == "stablehlo.custom_call":
            found.append(ir.StringAttr(op.attributes["call_target_name"]).value)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _op_names(module: ir.Module) -> set[str]:
    names: set[str] = set()
    module.operation.walk(lambda op: names.add(op.name) or ir.WalkResult.ADVANCE)
    return names


@pytest.fixture
def fresh_registry(monkeypatch):
    """A registry state of the test's own (passes, pipelines, resolved legalizations), restored after it."""
    registry.load_builtin_passes()
    monkeypatch.setattr(registry, "PASSES", dict(registry.PASSES))
    monkeypatch.setattr(registry, "PIPELINES", dict(registry.PIPELINES))
    prep.reset()
    yield
    prep.reset()


def test_hlokit_prepare_is_the_public_entry_point():
    assert hlokit.prepare is prep.prepare
    assert "prepare" in hlokit.__all__


@pytest.mark.parametrize("path", EXAMPLES, ids=_id)
def test_every_example_prepared_for_the_interpreter_has_nothing_left_and_verifies(path):
    module = _parse(path)
    planned = prep.plan(module, engine="interpreter")
    before = _op_names(module)
    prepared = prep.prepare(module, engine="interpreter")
    assert prepared.module is module and not prepared.copied  # in place
    assert prepared.actions == planned and prepared.engine == "interpreter"
    legs = {leg.flag: leg for leg in prep.legalizations("interpreter")}
    for action in prepared.actions:
        leg = legs[action.flag]
        assert action.ops and set(action.ops) <= leg.ops | leg.custom_calls
        assert set(action.ops) <= before | set(_custom_calls(hlokit.parse(path.read_text())))
        assert str(action).startswith(f"{action.flag}: the interpreter has no kernel for these ops (")
    module.operation.verify()
    assert prep.plan(module, engine="interpreter") == []
    left = {n for n in _op_names(module) if n not in OPS}
    assert left <= {"builtin.module", "func.func", "func.return", "func.call", "stablehlo.return", "sdy.mesh",
                    "sdy.manual_computation",
                    "sdy.return"}, (_id(path), left)
    assert not [t for t in _custom_calls(module) if t.startswith("lapack_")]


@pytest.mark.parametrize("path", EXAMPLES, ids=_id)
def test_every_example_prepared_for_xla(path):
    """On CPU only quantized programs change (lowered with quant-to-math); off CPU, LAPACK calls are legalized
    too. With ``copy`` the parsed module stays as it was."""
    text = path.read_text()
    module = _parse(path)
    cpu = prep.prepare(module, engine="xla", platform="cpu", copy=True)
    quantized = "!quant." in text
    assert cpu.flags == ([QUANT] if quantized else [])
    assert cpu.copied == quantized and (cpu.module is module) != quantized
    if quantized:
        assert str(cpu.actions[0]) == f"{QUANT}: XLA cannot compile quantized types"
        assert "!quant." not in str(cpu.module) and "!quant." in str(module)
    cpu.module.operation.verify()
    tpu = prep.prepare(_parse(path), engine="xla", platform="tpu")
    lapack_calls = [t for t in _custom_calls(module) if t.startswith("lapack_")]
    assert tpu.flags == ([LAPACK] if lapack_calls else []) + ([QUANT] if quantized else [])
    if lapack_calls:
        assert sorted(tpu.action(LAPACK).ops) == sorted(lapack_calls)
        assert str(tpu.action(LAPACK)).startswith(f"{LAPACK}: jaxlib's LAPACK kernels run only on XLA CPU (lapack_")
    tpu.module.operation.verify()
    assert not [t for t in _custom_calls(tpu.module) if t.startswith("lapack_")]


def test_a_program_with_nothing_to_do_is_not_copied_and_not_walked_twice():
    module = hlokit.parse("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}")
    for engine in prep.ENGINES:
        prepared = prep.prepare(module, engine=engine, copy=True)
        assert prepared.module is module and prepared.actions == [] and not prepared.copied


def test_a_refused_op_is_located_and_leaves_the_module_unchanged():
    text = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->az"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}"""
    module = hlokit.parse(text, source_name="p.mlir")
    before = str(module)
    with pytest.raises(hlokit.PassError, match=r"p\.mlir:2:8: error: 'stablehlo.einsum': output label 'z'"):
        prep.prepare(module, engine="interpreter", copy=False)
    assert str(module) == before


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="unknown engine 'gpu'"):
        prep.legalizations("gpu")
    with pytest.raises(ValueError, match="unknown engine"):
        prep.register_engine("gpu", set())


def test_the_policy_rows_name_registered_passes_and_pipelines():
    for rule in prep.POLICY:
        assert rule.engine in prep.ENGINES
        assert rule.condition in (prep.DECLARED, prep.NO_KERNEL, prep.QUANTIZED)
        assert prep.pipeline_passes(rule.flag), rule.flag
    cuda, rocm, tpu = (f"stablehlo-legalize-{p}-custom-calls" for p in ("cuda", "rocm", "tpu-only"))
    assert [leg.flag for leg in prep.legalizations("xla", "cpu")] == [cuda, rocm, tpu, QUANT]
    assert [leg.flag for leg in prep.legalizations("xla", "cuda")] == [LAPACK, rocm, tpu, QUANT]
    assert [leg.flag for leg in prep.legalizations("xla", "tpu")] == [LAPACK, cuda, rocm, QUANT]


def test_xlas_lapack_policy_is_the_passes_declaration(fresh_registry, monkeypatch):
    """Off CPU, XLA's LAPACK legalization is triggered by exactly the targets the pass declares."""
    cls = get_pass(LAPACK)
    (leg,) = [leg for leg in prep.legalizations("xla", "rocm") if leg.flag == LAPACK]
    assert leg.custom_calls == cls.illegal_custom_calls and "lapack_spotrf_ffi" in leg.custom_calls
    monkeypatch.setattr(cls, "illegal_custom_calls", frozenset({"lapack_dpotrf_ffi"}))
    prep.reset()
    module = hlokit.parse("""func.func @main(%a: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>) {
  %0:2 = stablehlo.custom_call @lapack_spotrf_ffi(%a) {mhlo.backend_config = {uplo = 76 : ui8}}
      : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
  return %0#0, %0#1 : tensor<3x3xf32>, tensor<i32>
}""")
    assert prep.plan(module, engine="xla", platform="rocm") == []  # spotrf no longer declared
    monkeypatch.setattr(cls, "illegal_custom_calls", frozenset({"lapack_spotrf_ffi"}))
    prep.reset()
    assert prep.plan(module, engine="xla", platform="rocm") == [
        prep.Action(LAPACK, "jaxlib's LAPACK kernels run only on XLA CPU", ("lapack_spotrf_ffi",))]
    assert prep.plan(module, engine="xla", platform="cpu") == []


def test_the_interpreters_legalizations_follow_a_new_lowering_step(fresh_registry):
    """A pass added to stablehlo-lower-to-core becomes an interpreter legalization for the declared ops the
    interpreter has no kernel for (``stablehlo.cosine`` has one; the unknown target has not)."""

    @register_pass
    class RemoveThings(Pass):
        argument = "test-remove-things"
        illegal_ops = frozenset({"stablehlo.cosine"})
        illegal_custom_calls = frozenset({"test_target"})

    pipeline = registry.PIPELINES["stablehlo-lower-to-core"]
    registry.PIPELINES["stablehlo-lower-to-core"] = type(pipeline)(pipeline.argument, pipeline.summary,
                                                                   pipeline.text + ",test-remove-things")
    prep.reset()
    legs = prep.legalizations("interpreter")
    assert legs[-1] == prep.Legalization("test-remove-things", "the interpreter has no kernel for these ops",
                                         frozenset(), frozenset({"test_target"}))
    assert "stablehlo.cosine" in OPS and "test_target" not in CUSTOM_CALLS
    module = hlokit.parse("""func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.cosine %x : tensor<2xf32>
  %1 = stablehlo.custom_call @test_target(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}""")
    (action,) = prep.plan(module, engine="interpreter")
    assert str(action) == "test-remove-things: the interpreter has no kernel for these ops (test_target)"


def test_the_interpreter_runs_a_prepared_program_as_it_ran_the_original():
    path = REPO / "examples" / "special_functions.mlir"
    module = _parse(path)
    specs, _ = hlokit.backend.signature(module)
    rng = np.random.default_rng(0)
    args = [hlokit_run.random_input(s, rng) for s in specs]
    want = hlokit.interpret(path.read_text(), args)
    prepared = prep.prepare(module, engine="interpreter", copy=True)
    assert prepared.copied and prepared.flags == ["chlo-legalize-to-stablehlo"]
    assert "chlo." in str(module) and "chlo." not in str(prepared.module)
    got = hlokit.interpret(prepared.module, args)
    assert all(g.tobytes() == w.tobytes() for g, w in zip(got, want))


def _programs(argv):
    args = hlokit_run.parse_arguments(argv)
    hlokit_run.check_arguments(args)
    return hlokit_run.prepare_programs(args)


def test_hlokit_run_prepares_each_engine_with_prepare():
    """``--engine both``: XLA compiles the parsed program (CHLO and all), the interpreter a legalized copy;
    a quantized program goes to XLA lowered (a copy) and to the interpreter as it is."""
    special = str(REPO / "examples" / "special_functions.mlir")
    programs = _programs([special, "--engine", "both"])
    assert programs.xla.module is programs.module and programs.xla.actions == []
    assert programs.interpreter.copied and programs.interpreter.flags == ["chlo-legalize-to-stablehlo"]
    assert "chlo." in str(programs.module)
    quantized = str(REPO / "examples" / "quantized_mlp.mlir")
    programs = _programs([quantized, "--engine", "both"])
    assert programs.xla.copied and programs.xla.flags == [QUANT]
    assert programs.interpreter.module is programs.module and programs.interpreter.actions == []
    programs = _programs([special, "--engine", "interpreter"])
    assert programs.xla is None and programs.interpreter.module is programs.module
    assert "chlo." not in str(programs.module)  # (the interpreter's program, prepared in place)
    programs = _programs([str(REPO / "examples" / "cholesky.mlir"), "--platform", "tpu"])
    assert programs.xla.flags == [LAPACK] and programs.interpreter is None


def test_hlokit_interpret_legalizes_what_a_new_lowering_step_declares(fresh_registry):
    """End to end: a custom call no kernel runs, declared by a pass added to stablehlo-lower-to-core, is
    legalized by that pass when ``hlokit.interpret`` meets it (text and ``ir.Module`` paths alike)."""
    from jaxlib.mlir.dialects import stablehlo

    @register_pass
    class NegateCalls(Pass):
        argument = "test-negate-calls"
        illegal_custom_calls = frozenset({"test_negate"})

        def run_on_operation(self, func_op):
            found = []
            func_op.walk(lambda op: (found.append(op.operation) if self.is_illegal(op) else None)
                         or ir.WalkResult.ADVANCE)
            for op in found:
                with ir.InsertionPoint(op), op.location:
                    new = stablehlo.NegOp(op.operands[0])
                op.results[0].replace_all_uses_with(new.result)
                op.erase()

    pipeline = registry.PIPELINES["stablehlo-lower-to-core"]
    registry.PIPELINES["stablehlo-lower-to-core"] = type(pipeline)(pipeline.argument, pipeline.summary,
                                                                   pipeline.text + ",test-negate-calls")
    prep.reset()
    text = """func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @test_negate(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}"""
    x = np.array([1.0, -2.0, 0.5], np.float32)
    (got,) = hlokit.interpret(text, [x])
    np.testing.assert_array_equal(got, -x)
    (got,) = hlokit.interpret(hlokit.parse(text), [x])
    np.testing.assert_array_equal(got, -x)
    prep.reset()
    registry.PIPELINES["stablehlo-lower-to-core"] = pipeline  # without the step: the call reaches the interpreter
    with pytest.raises(hlokit.InterpreterError, match="test_negate"):
        hlokit.interpret(text, [x])


def test_interpreter_legalizes_chlo_special_functions_through_f64():
    """ENGINE_PASS_OPTIONS: the interpreter's chlo-legalize-to-stablehlo runs with precision=wide (f64
    kernels), while the pass's own default (what hlokit-opt and XLA-bound pipelines get) is f32."""
    import math

    from hlokit.interpreter import interpret
    from hlokit.passes import run_pipeline

    text = ("func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
            "  %0 = chlo.erfc %x : tensor<3xf32> -> tensor<3xf32>\n"
            "  return %0 : tensor<3xf32>\n}\n")
    prepared = prep.prepare(hlokit.parse(text), engine="interpreter")
    assert [a.flag for a in prepared.actions] == ["chlo-legalize-to-stablehlo"]
    assert "f64" in str(prepared.module)
    default = hlokit.parse(text)
    run_pipeline(default, "builtin.module(func.func(chlo-legalize-to-stablehlo))")
    assert "f64" not in str(default)
    xs = np.array([0.5, 3.0, 9.0], np.float32)
    got = interpret(text, [xs])[0]
    want = np.array([math.erfc(float(x)) for x in xs], np.float32)  # f64 erfc rounded once to f32
    np.testing.assert_array_equal(got, want)
