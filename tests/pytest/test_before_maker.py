"""``builder_templates.before_maker`` (issue 40, item 1: the per-template maker that
``shape-legalize-to-stablehlo`` calls once per op, and what ``instantiate_before`` runs) writes what a clone of
the whole template moved before the op writes: the same ops, operands, result types and locations, for every kind of template body (one op, 2 to ``REPLAY_MAX_OPS`` ops,
an unused argument, a body with a region, a body that returns an argument), and keeps one maker per template.
"""

from __future__ import annotations

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.passes import builder_templates as bt
from hlokit.passes.builder import TemplateCache

PROGRAM = """
func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %x, %y : tensor<4xi32> loc("first")
  %1 = stablehlo.add %0, %x : tensor<4xi32> loc("second")
  return %1 : tensor<4xi32>
}
"""

#: name -> (template text, what ``add(a, b)`` becomes, as a function of the arguments).
TEMPLATES = {
    # one op, arguments swapped
    "single": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.subtract %b, %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}""", lambda a, b: b - a),
    # one op with an attribute, in argument order
    "single_attr": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.compare GT, %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %1 = stablehlo.select %0, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %1 : tensor<4xi32>
}""", np.maximum),
    # three ops, a result used twice
    "multi": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.subtract %b, %a : tensor<4xi32>
  %1 = stablehlo.multiply %0, %b : tensor<4xi32>
  %2 = stablehlo.add %1, %0 : tensor<4xi32>
  return %2 : tensor<4xi32>
}""", lambda a, b: (b - a) * b + (b - a)),
    # the first argument unused: the flat value list must still hold both operands first
    "unused_first": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  %0 = stablehlo.multiply %b, %c : tensor<4xi32>
  return %0 : tensor<4xi32>
}""", lambda a, b: b * 3),
    # the second argument unused, a constant first
    "unused_last": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = stablehlo.constant dense<2> : tensor<4xi32>
  %0 = stablehlo.add %a, %c : tensor<4xi32>
  %1 = stablehlo.negate %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}""", lambda a, b: -(a + 2)),
    # an op with a region (the general clone path)
    "region": ("""func.func private @t(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "stablehlo.all_reduce"(%b) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %s = stablehlo.maximum %p, %q : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {replica_groups = dense<[[0]]> : tensor<1x1xi64>} : (tensor<4xi32>) -> tensor<4xi32>
  %1 = stablehlo.add %0, %a : tensor<4xi32>
  return %1 : tensor<4xi32>
}""", lambda a, b: b + a),
}


def _rewrite(name: str, fast: bool) -> str:
    """PROGRAM with each add replaced by the template ``name`` (``fast``: through before_maker; else by the
    general path, a clone of the whole template moved before the op)."""
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    t = cache.parse(("k",), TEMPLATES[name][0], "test")
    adds = []

    def visit(o):
        if o.name == "stablehlo.add":
            adds.append(o)
        return ir.WalkResult.ADVANCE

    m.operation.walk(visit)
    assert len(adds) == 2
    for op in adds:
        if fast:
            outs = bt.before_maker(cache, t)(list(op.operands), op)
        else:
            outs = bt._clone_before(cache, t, op, list(op.operands))
        op.results[0].replace_all_uses_with(outs[0])
        op.erase()
    assert m.operation.verify()
    return hlokit.print_module(m, debug_info=True)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_maker_writes_what_the_clone_path_writes(name):
    fast = _rewrite(name, True)
    assert fast == _rewrite(name, False)
    assert 'loc("first")' in fast and 'loc("second")' in fast
    x, y = np.array([1, 2, 3, 4], np.int32), np.array([5, -1, 0, 2], np.int32)
    f = TEMPLATES[name][1]
    (got,) = hlokit.interpret(hlokit.parse(fast, context=hlokit.make_context()), [x, y])
    np.testing.assert_array_equal(got, f(f(x, y), x))


def test_one_maker_per_template_and_the_replay_indices():
    m = hlokit.parse(PROGRAM, context=hlokit.make_context())
    cache = TemplateCache(m.context)
    t = cache.parse(("k",), TEMPLATES["unused_first"][0], "test")
    assert bt.before_maker(cache, t) is bt.before_maker(cache, t)
    program, out = bt._flat_replay(bt._layout(cache, t).replay, 2)
    # values: [a, b, constant, multiply]: the multiply reads b (1) and the constant (2) and is returned (3)
    assert [(p[0], p[3], p[4]) for p in program] == [("stablehlo.constant", [], 1), ("stablehlo.multiply", [1, 2], 1)]
    assert out == [3]
    assert program[1][1] is None  # (no attributes: none converted per op)
