"""The value-level reductions of hlokit-reduce (hlokit.triage.reductions_values): replace-with-earlier skips
whole chains to an earlier value of the same type (never a later one, never inside a reducer body), and
fold-broadcast-constant turns a broadcast of a constant into one constant with the same elements."""

from __future__ import annotations

import numpy as np
import pytest
from jaxlib.mlir import ir

import hlokit
from hlokit.interpreter.values import dense_attribute
from hlokit.triage.reductions import ReductionNotApplicable, by_name
from hlokit.triage.reductions_base import all_ops


def _clone(module: ir.Module) -> ir.Module:
    text = module.operation.get_asm(enable_debug_info=True, print_generic_op_form=True)
    return ir.Module.parse(text, module.context)


def _apply(name: str, module: ir.Module, sites) -> ir.Module:
    copy = _clone(module)
    by_name(name).apply(copy, list(sites))
    copy.operation.verify()
    assert "hlokit.reduce" not in str(copy)
    return copy


def _names(module: ir.Module) -> list[str]:
    return [op.name for op in all_ops(module) if op.name not in ("func.func", "func.return", "stablehlo.return")]


CHAIN = """
func.func @main(%a: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %c = stablehlo.constant dense<2.0> : tensor<f32>
  %0 = stablehlo.multiply %a, %a : tensor<2x8xf32>
  %1 = stablehlo.exponential %0 : tensor<2x8xf32>
  %2 = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [1]
         : (tensor<2x8xf32>, tensor<f32>) -> tensor<2xf32>
  %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xf32>) -> tensor<2x8xf32>
  %4 = stablehlo.negate %3 : tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}
"""


def test_replace_with_earlier_skips_a_chain_to_the_nearest_earlier_values():
    module = hlokit.parse(CHAIN)
    r = by_name("replace-with-earlier")
    sites = r.sites(module)
    assert sites == r.sites(_clone(module))
    ops = all_ops(module)
    index = {op.name: i for i, op in enumerate(ops)}
    neg = index["stablehlo.negate"]
    # negate's result: broadcast (its operand: replace-with-operand's job) is skipped; the two nearest
    # earlier 2x8 values are exponential's and multiply's results
    assert [s for s in sites if s[0] == neg] == [(neg, 0, index["stablehlo.exponential"], 0),
                                                 (neg, 0, index["stablehlo.multiply"], 0)]
    out = _apply(r.name, module, [(neg, 0, index["stablehlo.exponential"], 0)])
    text = str(out)
    assert "stablehlo.negate" not in text and "return %1" in text
    # a block argument: the exponential's result by %a (%0 is its operand); the multiply's: none (%a is its operand)
    exp = index["stablehlo.exponential"]
    assert (index["stablehlo.multiply"], 0, -1, 0) not in sites
    assert [s for s in sites if s[0] == exp] == [(exp, 0, -1, 0)]
    assert "stablehlo.exponential" not in _names(_apply(r.name, module, [(exp, 0, -1, 0)]))
    # nothing inside the reducer body is a site; no later value is ever offered
    body = [i for i, op in enumerate(ops) if op.parent.name == "stablehlo.reduce"]
    assert body and not [s for s in sites if s[0] in body]
    assert all(s[2] < s[0] for s in sites)


def test_replace_with_earlier_refuses_a_value_that_does_not_dominate():
    module = hlokit.parse(CHAIN)
    ops = all_ops(module)
    index = {op.name: i for i, op in enumerate(ops)}
    r = by_name("replace-with-earlier")
    with pytest.raises(ReductionNotApplicable):  # a later op's result
        r.apply(_clone(module), [(index["stablehlo.multiply"], 0, index["stablehlo.negate"], 0)])
    with pytest.raises(ReductionNotApplicable):  # another type
        r.apply(_clone(module), [(index["stablehlo.negate"], 0, index["stablehlo.reduce"], 0)])
    with pytest.raises(ReductionNotApplicable):
        r.apply(_clone(module), [(index["stablehlo.negate"], 0)])  # malformed


BROADCASTS = """
func.func @main(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xi32>) {
  %s = stablehlo.constant dense<1.0e-39> : tensor<f32>
  %v = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %i = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %0 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %1 = stablehlo.broadcast_in_dim %v, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
  %2 = stablehlo.broadcast %i, sizes = [4] : (tensor<2x3xi32>) -> tensor<4x2x3xi32>
  %3 = stablehlo.broadcast_in_dim %a, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = stablehlo.multiply %0, %3 : tensor<2x3xf32>
  return %4, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xi32>
}
"""


def test_fold_broadcast_constant_keeps_every_element():
    module = hlokit.parse(BROADCASTS)
    r = by_name("fold-broadcast-constant")
    sites = r.sites(module)
    assert len(sites) == 3  # not the broadcast of an argument
    out = _apply(r.name, module, sites)
    assert _names(out).count("stablehlo.broadcast_in_dim") == 1 and "stablehlo.broadcast " not in str(out)
    values = [dense_attribute(op, "value") for op in all_ops(out) if op.name == "stablehlo.constant"
              and tuple(ir.RankedTensorType(op.results[0].type).shape) != ()
              and len(list(op.results[0].uses))]
    shapes = sorted(tuple(v.shape) for v in values)
    assert shapes == [(2, 3), (2, 3), (4, 2, 3)]
    for v in values:
        if v.shape == (4, 2, 3):
            np.testing.assert_array_equal(v, np.broadcast_to(np.array([[1, 2, 3], [4, 5, 6]]), (4, 2, 3)))
        elif v[0, 0] == 1.0:
            np.testing.assert_array_equal(v, np.array([[1.0, 2.0, 3.0]] * 2, np.float32))
        else:
            assert np.all(v == np.float32(1e-39))
    assert "dense<1.000000e-39> : tensor<2x3xf32>" in str(out)  # a splat stays a splat
    with pytest.raises(ReductionNotApplicable):
        r.apply(_clone(module), [len(all_ops(module)) - 2])  # the multiply


def test_engines_agree_on_the_folded_broadcasts():
    module = hlokit.parse(BROADCASTS)
    out = _apply("fold-broadcast-constant", module, by_name("fold-broadcast-constant").sites(module))
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = hlokit.interpret(module, [a])
    after = hlokit.interpret(out, [a])
    for x, y in zip(before, after):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
