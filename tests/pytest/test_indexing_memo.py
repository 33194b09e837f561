"""The indexing analysis's memoisation (simplifier memo, per-walk composition / rule / callee memos) gives
the maps the uncached algorithm gives, does its work once per distinct map, and reads no attribute that
jaxlib cannot read (https://openxla.org/xla/indexing, section "Indexing Maps for Fusion")."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

import hlokit
from hlokit.analysis import indexing_memo, indexing_ops
from hlokit.analysis.indexing import IndexingMap, Interval, RangeVar, RTVar, dim, dim_vars, sym
from hlokit.analysis.indexing_ops import (
    fold_constant_rt_vars,
    function_input_to_output,
    function_output_to_input,
    input_to_output,
    output_to_input,
)

T = "tensor<4x8xf32>"


def _block(i: int, x: str, dynamic: bool) -> tuple[list[str], str]:
    """One block of the program: cancelling reshape/transpose chain, a row max broadcast back, a slice
    padded back (through a call), and every third block a dynamic_slice at an argument index."""
    v = lambda n: f"%b{i}_{n}"  # noqa: E731
    lines = [
        f"{v('e')} = stablehlo.exponential {x} : {T}",
        f"{v('r')} = stablehlo.reshape {v('e')} : ({T}) -> tensor<8x4xf32>",
        f"{v('t')} = stablehlo.transpose {v('r')}, dims = [1, 0] : (tensor<8x4xf32>) -> tensor<4x8xf32>",
        f"{v('t2')} = stablehlo.transpose {v('t')}, dims = [1, 0] : ({T}) -> tensor<8x4xf32>",
        f"{v('r2')} = stablehlo.reshape {v('t2')} : (tensor<8x4xf32>) -> {T}",
        f"{v('m')} = stablehlo.reduce({v('e')} init: %init) applies stablehlo.maximum across dimensions = [1]"
        f" : ({T}, tensor<f32>) -> tensor<4xf32>",
        f"{v('mb')} = stablehlo.broadcast_in_dim {v('m')}, dims = [0] : (tensor<4xf32>) -> {T}",
        f"{v('d')} = stablehlo.subtract {v('r2')}, {v('mb')} : {T}",
        f"{v('s')} = stablehlo.slice {v('d')} [0:4, 1:8] : ({T}) -> tensor<4x7xf32>",
        f"{v('p')} = func.call @shift({v('s')}) : (tensor<4x7xf32>) -> {T}",
    ]
    out = v("p")
    if dynamic and i % 3 == 2:
        idx = "%i0" if i % 2 else "%i1"  # same op signature, different start values: rt vars differ
        lines += [
            f"{v('ds')} = stablehlo.dynamic_slice {out}, %c0, {idx}, sizes = [4, 4] : ({T}, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>",
            f"{v('pd')} = stablehlo.pad {v('ds')}, %init, low = [0, 0], high = [0, 4], interior = [0, 0]"
            f" : (tensor<4x4xf32>, tensor<f32>) -> {T}",
            f"{v('a')} = stablehlo.add {v('pd')}, {x} : {T}",
        ]
        out = v("a")
    return lines, out


def _program(n_blocks: int, dynamic: bool = True) -> str:
    body = [
        "%init = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
        "%c0 = stablehlo.constant dense<0> : tensor<i32>",
    ]
    x = "%arg0"
    for i in range(n_blocks):
        lines, x = _block(i, x, dynamic)
        body += lines
    body.append(f"return {x} : {T}")
    main = "\n    ".join(body)
    return (
        f"func.func @main(%arg0: {T}, %i0: tensor<i32>, %i1: tensor<i32>) -> {T} {{\n    {main}\n}}\n"
        "func.func private @shift(%a: tensor<4x7xf32>) -> tensor<4x8xf32> {\n"
        "    %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
        "    %p = stablehlo.pad %a, %z, low = [0, 1], high = [0, 0], interior = [0, 0]"
        " : (tensor<4x7xf32>, tensor<f32>) -> tensor<4x8xf32>\n"
        "    return %p : tensor<4x8xf32>\n}\n"
    )


def _parse(text: str):
    ctx = hlokit.make_context()
    module = hlokit.parse(text, context=ctx)
    return ctx, module, module.body.operations[0].operation


def _reference_output_to_input(func) -> dict[int, list[IndexingMap]]:
    """The fusion walk without memos: every pair composed and simplified, every rule run."""
    block = func.regions[0].blocks[0]
    ops = list(block.operations)
    maps: dict = {ops[-1].operands[0]: {}}
    start = IndexingMap.identity(indexing_ops.shape_of(ops[-1].operands[0]))._simplify_uncached()
    maps[ops[-1].operands[0]][start.key()] = start
    for op in reversed(ops[:-1]):
        op = op.operation
        for i, res in enumerate(op.results):
            if res not in maps:
                continue
            for operand, producer_maps in zip(op.operands, output_to_input(op, i)):
                target = maps.setdefault(operand, {})
                for cm in list(maps[res].values()):
                    for pm in producer_maps:
                        m = fold_constant_rt_vars(cm.compose(pm))._simplify_uncached()
                        if not m.is_known_empty():
                            target.setdefault(m.key(), m)
    return {a.arg_number: list(maps[a].values()) for a in block.arguments if maps.get(a)}


def _texts(result: dict[int, list[IndexingMap]]) -> dict[int, list[str]]:
    return {k: [m.to_string() for m in v] for k, v in result.items()}


@pytest.mark.parametrize("n_blocks", [1, 4, 9])
def test_memoised_walk_gives_the_uncached_maps(n_blocks):
    ctx, _, func = _parse(_program(n_blocks))
    with ctx:
        indexing_memo.SIMPLIFY_MEMO.clear()
        got = function_output_to_input(func, 0)
        want = _reference_output_to_input(func)
        assert _texts(got) == _texts(want)
        assert [[m.key() for m in v] for v in got.values()] == [[m.key() for m in v] for v in want.values()]
        # the index arguments (%arg1, %arg2) are read through rt vars that name them: two
        # dynamic_slices of one signature reading different values are not mixed up by the memos
        text = "".join(m.to_string() for v in got.values() for m in v)
        assert ("hlo: %arg2 = tensor<i32>" in text) == (n_blocks >= 3)
        assert ("hlo: %arg1 = tensor<i32>" in text) == (n_blocks >= 6)


def test_memoised_input_to_output_matches_per_op_composition():
    ctx, _, func = _parse(_program(4))
    with ctx:
        got = function_input_to_output(func, 0)
        block = func.regions[0].blocks[0]
        # the same walk again from an empty simplifier memo gives the same maps
        indexing_memo.SIMPLIFY_MEMO.clear()
        again = function_input_to_output(func, 0)
        assert _texts(got) == _texts(again)
        first = next(op.operation for op in block.operations if op.operation.name == "stablehlo.exponential")
        (to_out,) = input_to_output(first, 0)
        assert to_out[0].to_string() == IndexingMap.identity([4, 8]).to_string()


def _count_work(monkeypatch, n_blocks: int) -> tuple[int, int]:
    counts = {"compose": 0, "exp": 0}
    compose = IndexingMap.compose

    def counting_compose(self, other):
        counts["compose"] += 1
        return compose(self, other)

    rule = indexing_ops.OUT_TO_IN["stablehlo.exponential"]

    def counting_rule(op, index):
        counts["exp"] += 1
        return rule(op, index)

    monkeypatch.setattr(IndexingMap, "compose", counting_compose)
    monkeypatch.setitem(indexing_ops.OUT_TO_IN, "stablehlo.exponential", counting_rule)
    ctx, _, func = _parse(_program(n_blocks, dynamic=False))
    with ctx:
        function_output_to_input(func, 0)
    monkeypatch.undo()
    return counts["compose"], counts["exp"]


def test_work_is_done_once_per_distinct_map(monkeypatch):
    # blocks repeat, so past the first few every (consumer map, producer map) pair was seen before:
    # the number of compositions does not grow with the number of blocks, the rule runs once
    c6, e6 = _count_work(monkeypatch, 6)
    c24, e24 = _count_work(monkeypatch, 24)
    assert e6 == e24 == 1
    assert c6 == c24 and c24 < len(_program(6, dynamic=False).splitlines())


def _random_map(rng: random.Random) -> IndexingMap:
    d0, d1 = dim(0), dim(1)
    e = rng.choice([d0 * 4 + d1, (d0 * 8 + d1 * 2).floordiv(4), (d0 + sym(0)).mod(3), d1 * 2 + 1])
    cons = {}
    if rng.random() < 0.5:
        cons[(d0 + d1).mod(2)] = Interval(0, 0)
    return IndexingMap((e, d1 - 1), dim_vars([rng.randint(1, 4), rng.randint(1, 8)]), (RangeVar(Interval(0, 2)),), (), cons)


def test_simplify_memo_is_exact_shared_and_bounded(monkeypatch):
    rng = random.Random(40)
    indexing_memo.SIMPLIFY_MEMO.clear()
    for _ in range(200):
        m = _random_map(rng)
        s = m.simplify()
        assert s.to_string() == m._simplify_uncached().to_string()
        assert s.key() == m._simplify_uncached().key()
        assert m.simplify() is s  # the memo's result is shared (maps are immutable)
    monkeypatch.setattr(indexing_memo, "MEMO_LIMIT", 3)
    for _ in range(20):
        _random_map(rng).simplify()
        assert len(indexing_memo.SIMPLIFY_MEMO) <= 3


def test_maps_with_rt_vars_are_not_memoised():
    indexing_memo.SIMPLIFY_MEMO.clear()
    rt = RTVar(Interval(0, 3), None, (), "offset")
    m = IndexingMap((dim(0) + sym(0),), dim_vars([4]), (), (rt,))
    assert m.simplify().to_string() == m._simplify_uncached().to_string()
    assert not indexing_memo.SIMPLIFY_MEMO


def test_complex_attributes_are_not_read():
    # jaxlib aborts the process when it reads a complex dense attribute: the op signature of the rule
    # memo reads inherent attributes only, and constants not at all (run in a child process)
    code = r'''
import hlokit
from hlokit.analysis.indexing_ops import function_output_to_input, function_input_to_output
text = """
func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %c = stablehlo.constant dense<(1.0,2.0)> : tensor<2xcomplex<f32>>
  %s = stablehlo.add %a, %c {x.tag = dense<(3.0,4.0)> : tensor<2xcomplex<f32>>} : tensor<2xcomplex<f32>>
  %t = stablehlo.add %s, %c {x.tag = dense<(3.0,4.0)> : tensor<2xcomplex<f32>>} : tensor<2xcomplex<f32>>
  return %t : tensor<2xcomplex<f32>>
}
"""
ctx = hlokit.make_context(allow_unregistered_dialects=True)
m = hlokit.parse(text, context=ctx)
with ctx:
    f = m.body.operations[0].operation
    print(len(function_output_to_input(f, 0)[0]), len(function_input_to_output(f, 0)[0]))
'''
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["1", "1"]
