"""The fast paths of the template machinery (issue 40, item 1): what they must keep doing.

* :func:`hlokit.passes.builder.instantiate` clones a one-op template on its own (operands mapped from the
  template's arguments in their order, results and locations as for a whole body), and a body with
  nested regions whole, relocated;
* :func:`hlokit.passes.builder.body_ops` lists the ops directly in an op's regions, in order;
* :attr:`TemplatePass.plan_per_signature` shares a plan only between ops of the same name, types and
  attributes: ops that differ in an attribute alone get their own expansions (checked on the interpreter).
"""

from __future__ import annotations

import numpy as np

import hlokit
from hlokit.passes import run_pipeline
from hlokit.passes.builder import TemplateCache, body_ops, instantiate, instantiate_before


def _module(text: str):
    return hlokit.parse(text, context=hlokit.make_context())


def _first(module, name: str):
    found = []

    def visit(o):
        if o.name == name:
            found.append(o)
        from jaxlib.mlir import ir
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found[0]


TARGET = """
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %y : tensor<2xf32> loc("the_op")
  return %0 : tensor<2xf32>
}
"""


def test_instantiate_one_op_template_maps_operands_in_order():
    m = _module("""
    func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.add %x, %y : tensor<2xf32> loc("first")
      %1 = stablehlo.add %0, %x : tensor<2xf32> loc("second")
      return %1 : tensor<2xf32>
    }""")
    cache = TemplateCache(m.context)
    t = cache.parse(("k",), """func.func private @t(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.subtract %b, %a : tensor<2xf32>
      return %0 : tensor<2xf32>
    }""", "test")
    for _ in range(2):  # (the second use takes the template's shared layout)
        instantiate(cache, t, _first(m, "stablehlo.add"))
    text = hlokit.print_module(m, debug_info=True)
    assert "%0 = stablehlo.subtract %arg1, %arg0 : tensor<2xf32> loc(#loc" in text, text
    assert "%1 = stablehlo.subtract %arg0, %0" in text, text
    assert "stablehlo.add" not in text
    assert 'loc("first")' in text and 'loc("second")' in text
    assert m.operation.verify()
    (got,) = hlokit.interpret(m, [np.array([1, 2], np.float32), np.array([5, 7], np.float32)])
    np.testing.assert_array_equal(got, [-3, -3])  # x - (y - x)
    # the template itself is untouched: its op still reads its own arguments
    assert "stablehlo.subtract %arg1, %arg0" in str(t)


def test_instantiate_before_one_op_template_returns_the_clone():
    m = _module(TARGET)
    cache = TemplateCache(m.context)
    t = cache.parse(("k",), """func.func private @t(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.negate %a : tensor<2xf32>
      return %0 : tensor<2xf32>
    }""", "test")
    add = _first(m, "stablehlo.add")
    (out,) = instantiate_before(cache, t, add, [add.operands[1]])
    add.results[0].replace_all_uses_with(out)
    add.erase()
    text = hlokit.print_module(m)
    assert "stablehlo.negate %arg1" in text and "stablehlo.add" not in text, text


def test_instantiate_region_template_relocated_whole():
    m = _module(TARGET)
    cache = TemplateCache(m.context)
    t = cache.parse(("r",), """func.func private @t(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%a init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
      %r = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %o = stablehlo.multiply %r, %b : tensor<2xf32>
      return %o : tensor<2xf32>
    }""", "test")
    instantiate(cache, t, _first(m, "stablehlo.add"), relocate_nested=True)
    assert m.operation.verify()
    (got,) = hlokit.interpret(m, [np.array([1, 2], np.float32), np.array([3, 4], np.float32)])
    np.testing.assert_array_equal(got, [9, 12])
    text = hlokit.print_module(m, debug_info=True, generic=True)
    body = text[text.index('"stablehlo.constant"'):text.index('"func.return"')]
    ops = [line for line in body.splitlines()  # (the reduce's location ends its "})" line)
           if ('"stablehlo.' in line and not line.endswith("({")) or line.strip().startswith("})")]
    locs = {line[line.rindex("loc("):] for line in ops}
    assert len(ops) >= 6 and len(locs) == 1, ops  # every op, nested ones too, at the op's location


def test_body_ops_lists_the_direct_children_in_order():
    m = _module("""
    func.func @main(%x: tensor<2xf32>) -> tensor<f32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %s = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
      return %s : tensor<f32>
    }""")
    func = _first(m, "func.func")
    assert [o.name for o in body_ops(func)] == ["stablehlo.constant", "stablehlo.reduce", "func.return"]
    assert [o.name for o in body_ops(_first(m, "stablehlo.reduce"))] == ["stablehlo.add", "stablehlo.return"]


def test_plans_shared_only_between_ops_of_one_signature():
    # Two unary_einsum ops of the same operand and result types that differ in their config only, twice each.
    m = _module("""
    func.func @main(%a: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
      %0 = "stablehlo.unary_einsum"(%a) {einsum_config = "ii->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
      %1 = "stablehlo.unary_einsum"(%a) {einsum_config = "ij->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
      %2 = "stablehlo.unary_einsum"(%a) {einsum_config = "ii->i"} : (tensor<3x3xf32>) -> tensor<3xf32>
      %3 = "stablehlo.unary_einsum"(%a) {einsum_config = "ij->j"} : (tensor<3x3xf32>) -> tensor<3xf32>
      return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
    }""")
    run_pipeline(m, "builtin.module(func.func(stablehlo-legalize-deprecated-ops))")
    assert "unary_einsum" not in str(m)
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    got = hlokit.interpret(m, [a])
    for g, want in zip(got, [np.diag(a), a.sum(1), np.diag(a), a.sum(0)]):
        np.testing.assert_array_equal(g, want)
