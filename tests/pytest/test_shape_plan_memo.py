"""shape-legalize-to-stablehlo plans each op signature once (``passes/shape_plan_memo.py``): replaying a
signature's recorded outcome must write exactly what running every op's handler writes, refuse exactly what
it refuses, and tell apart what the handlers tell apart (constant indices, operand and result types, scalar
constants, ``shape.with_shape`` results, ops left as they are)."""

from __future__ import annotations

import sys

import pytest

import hlokit
from hlokit.diagnostics import HlokitError
from hlokit.passes import run_pipeline
from hlokit.passes import shape_legalize_to_stablehlo as shape_pass
from hlokit.passes import shape_plan_memo

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import passes_speed  # noqa: E402  (the benchmark's generated shape program)

OPTIONS = ["", "{index-bitwidth=64}", "{assertions=true}"]

# Every replayable kind of op, most of them several times with the same and with a different signature:
# extracts at two constant indices, arith on index, on extent tensors cast to i32 (left as it is: no index
# operand) and on data tensors (left), multi-result split_at, a three-element from_elements, a non-index
# scalar constant (the general signature), shape.with_shape / value_of, and the patched dynamic ops.
MIXED = """func.func @main(%x: tensor<?x4xf32>, %y: tensor<4xf32>, %z: tensor<?x?xf32>, %i: tensor<3xi32>) -> (tensor<?x4xf32>, tensor<2xi32>, tensor<3xi32>, i32, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %sy = shape.shape_of %y : tensor<4xf32> -> tensor<1xindex>
  %sx = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %sx2 = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %s = shape.broadcast %sx, %sy : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
  %s2 = shape.broadcast %sx2, %sy : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
  %e0 = tensor.extract %s[%c0] : tensor<2xindex>
  %e1 = tensor.extract %s[%c1] : tensor<2xindex>
  %e2 = tensor.extract %s2[%c0] : tensor<2xindex>
  %e3 = tensor.extract %s2[%c1] : tensor<2xindex>
  %a0 = arith.addi %e0, %e1 : index
  %a1 = arith.addi %e2, %e3 : index
  %m0 = arith.muli %a0, %a1 : index
  %m1 = arith.muli %a1, %a0 : index
  %d0 = tensor.dim %z, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %z, %c1 : tensor<?x?xf32>
  %d2 = tensor.dim %z, %c0 : tensor<?x?xf32>
  %n0 = arith.maxsi %d0, %d1 : index
  %n1 = arith.maxsi %d2, %n0 : index
  %f0 = tensor.from_elements %n1, %c4 : tensor<2xindex>
  %f1 = tensor.from_elements %m0, %m1, %c4 : tensor<3xindex>
  %f2 = tensor.from_elements %m1, %m0, %c4 : tensor<3xindex>
  %hd, %tl = "shape.split_at"(%f1, %c1) : (tensor<3xindex>, index) -> (tensor<1xindex>, tensor<2xindex>)
  %hd2, %tl2 = "shape.split_at"(%f2, %c1) : (tensor<3xindex>, index) -> (tensor<1xindex>, tensor<2xindex>)
  %tli = arith.index_cast %tl : tensor<2xindex> to tensor<2xi32>
  %tl2i = arith.index_cast %tl2 : tensor<2xindex> to tensor<2xi32>
  %keep0 = arith.addi %tli, %tl2i : tensor<2xi32>
  %keep1 = arith.addi %tl2i, %tli : tensor<2xi32>
  %data0 = arith.addi %i, %i : tensor<3xi32>
  %data1 = arith.muli %data0, %i : tensor<3xi32>
  %k7 = arith.constant 7 : i32
  %q0 = arith.index_cast %m0 : index to i32
  %q1 = arith.index_cast %m1 : index to i32
  %r0 = arith.addi %q0, %k7 : i32
  %r1 = arith.addi %q1, %k7 : i32
  %r2 = arith.addi %r0, %r1 : i32
  %sz = shape.shape_of %z : tensor<?x?xf32> -> tensor<2xindex>
  %ws = shape.with_shape %z, %sz : tensor<?x?xf32>, tensor<2xindex>
  %zv = shape.value_of %ws : tensor<?x?xf32>
  %sz2 = shape.shape_of %zv : tensor<?x?xf32> -> tensor<2xindex>
  %b0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %b1 = stablehlo.dynamic_broadcast_in_dim %x, %s2, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %b2 = stablehlo.dynamic_broadcast_in_dim %b0, %f0, dims = [0, 1] : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %rz = stablehlo.dynamic_reshape %zv, %sz2 : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %sum = stablehlo.add %b1, %b2 : tensor<?x4xf32>
  return %sum, %keep1, %data1, %r2, %rz : tensor<?x4xf32>, tensor<2xi32>, tensor<3xi32>, i32, tensor<?x?xf32>
}
"""


def _lit_chunks() -> list[str]:
    text = (REPO / "tests" / "lit" / "passes" / "shape_legalize_to_stablehlo.mlir").read_text()
    return [c for c in text.split("// -----") if "func.func" in c]


def _programs() -> list[tuple[str, str]]:
    examples = sorted((REPO / "examples" / "lower_to_core" / "shape").glob("*.mlir"))
    return ([(f"lit{i}", c) for i, c in enumerate(_lit_chunks())] + [(p.name, p.read_text()) for p in examples]
            + [("mixed", MIXED), ("benchmark", passes_speed.make_shape_module(400))])


def _run(text: str, option: str) -> str:
    """The legalized program's text, or the refusal's message."""
    ctx = hlokit.make_context()
    try:
        module = hlokit.parse(text, context=ctx)
    except HlokitError:
        return "unparsed"
    try:
        run_pipeline(module, f"builtin.module(func.func(shape-legalize-to-stablehlo{option}))")
    except HlokitError as err:
        return f"refused: {err}"
    return str(module)


@pytest.mark.parametrize("option", OPTIONS)
def test_replayed_plan_writes_what_the_handlers_write(option, monkeypatch):
    """Every program (the lit file's cases, refused ones included, the examples, a mix of every replayable op
    and the benchmark's program): the same text or the same refusal with and without replaying."""
    programs = _programs()
    replayed = [_run(text, option) for _, text in programs]
    monkeypatch.setattr(shape_pass, "_REPLAYABLE", frozenset())
    for (name, text), got in zip(programs, replayed):
        assert got == _run(text, option), name
    assert sum(r.startswith("refused") for r in replayed) > 5 and sum("stablehlo." in r for r in replayed) > 15
    assert "unparsed" not in replayed


def _planner_of(text: str, monkeypatch) -> object:
    """Legalize ``text`` and return the pass's planner (as the rewriter got it)."""
    seen = []

    class Recording(shape_pass._Rewriter):
        def __init__(self, planner, context):
            seen.append(planner)
            super().__init__(planner, context)

    monkeypatch.setattr(shape_pass, "_Rewriter", Recording)
    assert not _run(text, "").startswith("refused")
    return seen[0]


def test_signatures_are_replayed_and_told_apart(monkeypatch):
    """The mixed program's ops run their handler once per signature: constant indices, left-as-is arith
    (on data tensors and on i32 extent tensors) and the general signature each get their own outcome."""
    p = _planner_of(MIXED, monkeypatch)
    outcomes = p.outcomes
    assert len(outcomes) < len(p.steps)
    names = [key[0] for key in outcomes]
    assert names.count("tensor.extract") == 2  # (%s[%c0], %s[%c1]; %s2's reads replay them)
    assert names.count("shape.split_at") == 1  # (two results: the general signature, replayed)
    nothing = [key[0] for key, out in outcomes.items() if out is shape_plan_memo._NOTHING]
    assert nothing.count("arith.addi") >= 2 and "arith.muli" in nothing  # (i32 extent tensors, data tensors)
    assert sum(1 for s in p.steps if s.kind == "template") > len(outcomes)  # (the ops are erased by now)
    assert not p.shape_typed


def test_benchmark_program_plans_each_block_by_replay(monkeypatch):
    """The benchmark's repeated blocks: a fixed number of signatures, however many blocks."""
    small = _planner_of(passes_speed.make_shape_module(200), monkeypatch)
    large = _planner_of(passes_speed.make_shape_module(800), monkeypatch)
    assert len(large.outcomes) == len(small.outcomes) <= 20
    assert len(large.steps) > 3 * len(small.steps)


def test_shape_typed_results_still_run_the_escape_check(monkeypatch):
    """A replayed ``!shape.size`` result used by ``func.return`` is refused as without replaying."""
    text = """func.func @main(%a: tensor<2xindex>, %b: tensor<2xindex>) -> (!shape.size, !shape.size) {
  %n = shape.num_elements %a : tensor<2xindex> -> !shape.size
  %m = shape.num_elements %b : tensor<2xindex> -> !shape.size
  return %n, %m : !shape.size, !shape.size
}"""
    got = _run(text, "")
    assert got.startswith("refused") and "explicitly marked illegal" in got
    monkeypatch.setattr(shape_pass, "_REPLAYABLE", frozenset())
    assert _run(text, "") == got
