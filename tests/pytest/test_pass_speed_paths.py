"""The create / replay paths of the template machinery (issue 40, item 1) write what a clone of the whole
template body writes: the same ops, operands, result types and locations.

* :func:`hlokit.passes.builder_templates.instantiate_before` creates a body of 2 to ``REPLAY_MAX_OPS`` ops
  without regions op by op (operands from the arguments and from earlier ops' results);
* :func:`hlokit.passes.builder_templates.instantiate` clones a body of one op with regions on its own, its
  nested ops relocated with ``relocate_nested``;
* :func:`hlokit.passes.builder_templates.single_rewriter` replaces each op of a signature by a created op;
* ``stablehlo-legalize-deprecated-ops`` rewrites ``dot`` / ``create_token`` with one created op per op.

Each path is compared with the general path (``prepare`` given: clone, walk, move), printed with locations.
"""

from __future__ import annotations

import re

import numpy as np
from jaxlib.mlir import ir

import hlokit
from hlokit.passes import builder_templates as bt
from hlokit.passes import run_pipeline
from hlokit.passes.builder import TemplateCache, instantiate, instantiate_before

PROGRAM = """
func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %x, %y : tensor<4xi32> loc("first")
  %1 = stablehlo.add %0, %x : tensor<4xi32> loc("second")
  return %1 : tensor<4xi32>
}
"""

#: Three ops over both arguments, one result used twice: ``(b - a) * b + (b - a)``.
MULTI = """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.subtract %b, %a : tensor<4xi32>
  %1 = stablehlo.multiply %0, %b : tensor<4xi32>
  %2 = stablehlo.add %1, %0 : tensor<4xi32>
  return %2 : tensor<4xi32>
}"""

#: One op with a region (a reduction over the whole vector, broadcast back).
REGION = """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.all_reduce"(%b) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.maximum %p, %q : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}"""


def _adds(m) -> list:
    found = []

    def visit(o):
        if o.name == "stablehlo.add":
            found.append(o)
        return ir.WalkResult.ADVANCE

    m.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def _run_both(template: str, rewrite) -> tuple[str, str]:
    """``rewrite(cache, template_op, op, general)`` on every add of PROGRAM, once with each path; both texts."""
    texts = []
    for general in (False, True):
        m = hlokit.parse(PROGRAM, context=hlokit.make_context())
        cache = TemplateCache(m.context)
        t = cache.parse(("k",), template, "test")
        for op in _adds(m):
            rewrite(cache, t, op, general)
        assert m.operation.verify()
        texts.append(hlokit.print_module(m, debug_info=True))
    return texts[0], texts[1]


def _before(cache, t, op, general):
    if general:
        layout = bt._layout(cache, t)
        saved, layout.replay = layout.replay, None
    outs = instantiate_before(cache, t, op, list(op.operands))
    if general:
        layout.replay = saved
    op.results[0].replace_all_uses_with(outs[0])
    op.erase()


def test_replay_writes_what_the_clone_writes():
    fast, general = _run_both(MULTI, _before)
    assert fast == general
    assert fast.count("stablehlo.multiply") == 2 and "stablehlo.add" in fast
    assert 'loc("first")' in fast and 'loc("second")' in fast
    m = hlokit.parse(fast, context=hlokit.make_context())
    x, y = np.array([1, 2, 3, 4], np.int32), np.array([5, -1, 0, 2], np.int32)
    (got,) = hlokit.interpret(m, [x, y])
    d0 = y - x
    s0 = d0 * y + d0
    d1 = x - s0
    np.testing.assert_array_equal(got, d1 * x + d1)


def test_replay_program_maps_arguments_and_results():
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    layout = bt._layout(cache, cache.parse(("k",), MULTI, "test"))
    program, out = layout.replay
    assert [p[0] for p in program] == ["stablehlo.subtract", "stablehlo.multiply", "stablehlo.add"]
    assert [p[3] for p in program] == [[(0, 1), (0, 0)], [(1, 0, 0), (0, 1)], [(1, 1, 0), (1, 0, 0)]]
    assert out == [(1, 2, 0)]
    assert bt._layout(cache, cache.parse(("r",), REGION, "test")).replay is None  # (regions: cloned)


def _instantiate(cache, t, op, general):
    instantiate(cache, t, op, (lambda clone: None) if general else None, relocate_nested=True)


def test_one_op_with_a_region_is_cloned_alone_and_relocated():
    fast, general = _run_both(REGION, _instantiate)
    assert fast == general
    assert fast.count("stablehlo.all_reduce") == 2 and "stablehlo.add" not in fast
    # every op of the expansion (all_reduce, the nested maximum and return) is at the replaced op's location
    for name in ("first", "second"):
        (alias,) = re.findall(rf'^(#loc\d+) = loc\("{name}"\)$', fast, re.M)
        assert fast.count(f"loc({alias})") == 3, fast
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    assert bt._layout(TemplateCache(m.context), TemplateCache(m.context).parse(("r",), REGION, "t")).held is not None


def test_a_region_that_reads_an_argument_is_not_cloned_alone():
    text = REGION.replace("%s = stablehlo.maximum %p, %q", "%s = stablehlo.maximum %p, %q").replace(
        "(%b) ({", "(%b) ({").replace("%s = stablehlo.maximum %p, %q : tensor<i32>",
                                      "%r = stablehlo.reshape %a : (tensor<4xi32>) -> tensor<4xi32>\n"
                                      "    %s = stablehlo.maximum %p, %q : tensor<i32>")
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    assert bt._layout(cache, cache.parse(("r",), text, "t")).held is None


def _single(cache, t, op, general):
    if general:
        instantiate(cache, t, op, lambda clone: None)
    else:
        rewrite = bt.single_rewriter(cache, t, [op.results[0].type])
        assert rewrite is not None
        rewrite(op)


def test_single_rewriter_writes_what_instantiate_writes():
    one = """func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
      %0 = stablehlo.subtract %b, %a : tensor<4xi32>
      return %0 : tensor<4xi32>
    }"""
    fast, general = _run_both(one, _single)
    assert fast == general
    assert "stablehlo.subtract %arg1, %arg0" in fast, fast
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    assert bt.single_rewriter(cache, cache.parse(("m",), MULTI, "t"), []) is None


def test_deprecated_dot_and_create_token_keep_precision_and_location():
    text = """
    func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %v: tensor<3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<3xf32>, !stablehlo.token) {
      %0 = "stablehlo.dot"(%a, %b) {precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision DEFAULT>]} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("d0")
      %1 = "stablehlo.dot"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("d1")
      %2 = "stablehlo.dot"(%b, %v) : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<4xf32> loc("d2")
      %3 = "stablehlo.create_token"() : () -> !stablehlo.token loc("t")
      return %0, %1, %v, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<3xf32>, !stablehlo.token
    }"""
    m = hlokit.parse(text.replace("(%b, %v) : (tensor<3x4xf32>, tensor<3xf32>) -> tensor<4xf32>",
                                  "(%v, %b) : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>"),
                     context=hlokit.make_context())
    run_pipeline(m, "builtin.module(func.func(stablehlo-legalize-deprecated-ops))")
    out = hlokit.print_module(m, debug_info=True)
    assert "stablehlo.dot " not in out and "create_token" not in out
    assert out.count("stablehlo.dot_general") == 3
    assert "precision = [HIGHEST, DEFAULT]" in out and out.count("precision =") == 1, out
    assert "contracting_dims = [1] x [0]" in out and "contracting_dims = [0] x [0]" in out, out
    assert "stablehlo.after_all  : !stablehlo.token" in out or "stablehlo.after_all : !stablehlo.token" in out, out
    for name in ("d0", "d1", "d2", "t"):
        assert f'loc("{name}")' in out
