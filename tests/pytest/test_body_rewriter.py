"""``builder_templates.body_rewriter`` (issue 40, item 1: how ``stablehlo-legalize-deprecated-ops`` writes a
template of a few ops, one of them with a region, e.g. ``unary_einsum``'s constant and reduce) writes what
:func:`~hlokit.passes.builder_templates.instantiate` writes with a clone of the whole template: the same ops,
operands, attributes, result types and locations (nested ops' too, with and without ``relocate_nested``), and
refuses the bodies it does not handle."""

from __future__ import annotations

import sys

import pytest

from jaxlib.mlir import ir

import hlokit
from hlokit.diagnostics import HlokitError
from hlokit.passes import builder_templates as bt
from hlokit.passes import run_pipeline
from hlokit.passes import stablehlo_legalize_deprecated_ops as deprecated
from hlokit.passes.builder import TemplateCache

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))
import passes_speed  # noqa: E402  (the benchmark's generated program of deprecated ops)

PROGRAM = """
func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %x, %y : tensor<4xi32> loc("first")
  %1 = stablehlo.add %0, %x : tensor<4xi32> loc("second")
  return %1 : tensor<4xi32>
}
"""

#: name -> template of ``add(a, b)`` (each located inside, so that a wrong location shows).
TEMPLATES = {
    # a region op after a constant, reading both arguments and the constant
    "constant_then_region": """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32> loc("t0")
  %0 = stablehlo.add %a, %b : tensor<4xi32> loc("t1")
  %1 = stablehlo.reduce(%0 init: %c) across dimensions = [] : (tensor<4xi32>, tensor<i32>) -> tensor<4xi32>
   reducer(%p: tensor<i32>, %q: tensor<i32>) {
    %s = stablehlo.maximum %p, %q : tensor<i32> loc("t2")
    stablehlo.return %s : tensor<i32> loc("t3")
  } loc("t4")
  return %1 : tensor<4xi32>
}""",
    # a region op first, its result used by a later op
    "region_then_op": """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.all_reduce"(%b) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.add %p, %q : tensor<i32> loc("t5")
    stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = stablehlo.subtract %0, %a : tensor<4xi32>
  return %1 : tensor<4xi32>
}""",
}

#: Bodies body_rewriter leaves to instantiate: one op; a region that reads an argument from inside.
REFUSED = {
    "one_op": """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.subtract %b, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}""",
    "region_reads_argument": """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %k = stablehlo.constant dense<1> : tensor<i32>
  %0 = "stablehlo.all_reduce"(%b) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.add %p, %k : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}""",
}


def _rewrite(text: str, fast: bool, relocate_nested: bool) -> str:
    """PROGRAM with each add replaced by the template ``text`` (``fast``: body_rewriter; else instantiate)."""
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    t = cache.parse(("k",), text, "test")
    adds = []
    m.operation.walk(lambda o: (adds.append(o.operation) if o.name == "stablehlo.add" else None)
                     or ir.WalkResult.ADVANCE)
    rewrite = bt.body_rewriter(cache, t, relocate_nested=relocate_nested) if fast else None
    assert (rewrite is not None) == fast
    for op in adds:
        if fast:
            rewrite(op)
        else:
            bt.instantiate(cache, t, op, relocate_nested=relocate_nested)
    assert m.operation.verify()
    return m.operation.get_asm(enable_debug_info=True)


@pytest.mark.parametrize("relocate_nested", [False, True])
@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_body_rewriter_writes_what_instantiate_writes(name, relocate_nested):
    fast = _rewrite(TEMPLATES[name], True, relocate_nested)
    assert fast == _rewrite(TEMPLATES[name], False, relocate_nested)
    made = "stablehlo.constant" if name == "constant_then_region" else "stablehlo.all_reduce"
    assert fast.count(made) == 2  # (both adds rewritten)
    if name == "region_then_op":  # (the nested op printed with its location: the template's unless relocated)
        assert ('"t5"' in fast) == (not relocate_nested)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_body_rewriter_leaves_other_bodies(name):
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    assert bt.body_rewriter(cache, cache.parse(("k",), REFUSED[name], "test")) is None


def _lit_chunks() -> list[str]:
    text = (REPO / "tests" / "lit" / "passes" / "stablehlo_legalize_deprecated_ops.mlir").read_text()
    return [c for c in text.split("// -----") if "func.func" in c]


UNARY = """func.func @main(%a: tensor<8x16xf32>, %b: tensor<2x3x4xi32>) -> (tensor<16xf32>, tensor<8xf32>, tensor<2x4xi32>) {
  %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ij->j"} : (tensor<8x16xf32>) -> tensor<16xf32>
  %1 = "stablehlo.unary_einsum"(%a) {einsum_config = "ij->i"} : (tensor<8x16xf32>) -> tensor<8xf32>
  %2 = "stablehlo.unary_einsum"(%b) {einsum_config = "ijk->ik"} : (tensor<2x3x4xi32>) -> tensor<2x4xi32>
  %3 = "stablehlo.unary_einsum"(%a) {einsum_config = "ij->j"} : (tensor<8x16xf32>) -> tensor<16xf32>
  %4 = stablehlo.add %0, %3 : tensor<16xf32>
  return %4, %1, %2 : tensor<16xf32>, tensor<8xf32>, tensor<2x4xi32>
}
"""


def _run(text: str) -> str:
    ctx = hlokit.make_context()
    try:
        module = hlokit.parse(text, context=ctx)
    except HlokitError:
        return "unparsed"
    try:
        run_pipeline(module, "builtin.module(func.func(stablehlo-legalize-deprecated-ops))")
    except HlokitError as err:  # (a refusal: its message)
        return f"refused: {err}"
    return module.operation.get_asm(enable_debug_info=True)


def test_deprecated_pass_writes_the_same_program_without_it(monkeypatch):
    """The deprecated-ops pass on its lit cases, unary_einsum variants and the benchmark's program: the same
    text (locations included) with body_rewriter and with instantiate's clone of the whole template."""
    programs = _lit_chunks() + [UNARY, passes_speed.make_deprecated_module(180)]
    fast = [_run(p) for p in programs]
    monkeypatch.setattr(deprecated, "body_rewriter", lambda *args, **kwargs: None)
    assert fast == [_run(p) for p in programs]
    assert "stablehlo.reduce" in fast[-2] and "unary_einsum" not in fast[-2]
