"""The rule tables of the indexing analysis and the helpers every rule module uses.

A rule is one function ``rule(op, index) -> OpMaps`` registered with :func:`out_to_in` (index = result
number; it returns, per operand, the maps from the result's multi-index to the operand indices it reads) or
:func:`in_to_out` (index = operand number; per result, the maps from the operand's multi-index to the result
indices that read it) under the op's full name. The rules themselves live by op kind in
:mod:`hlokit.analysis.indexing_data_movement` (elementwise and data-movement ops) and
:mod:`hlokit.analysis.indexing_structured` (reductions, sort, gather, dot, pad, windows, convolution);
:mod:`hlokit.analysis.indexing_ops` is the public API that runs them. Source:
https://openxla.org/xla/indexing ("Indexing Maps for Unfused Ops"; XLA's
``xla/hlo/analysis/indexing_analysis.cc``).
"""

from __future__ import annotations

import inspect
import re
from typing import Callable, Sequence

from jaxlib.mlir import ir

from hlokit.analysis.indexing import (
    DimVar,
    Expr,
    IndexingError,
    IndexingMap,
    Interval,
    RTVar,
    dim_vars,
    range_vars,
    sym,
)

__all__ = [
    "OpMaps",
    "Rule",
    "OUT_TO_IN",
    "IN_TO_OUT",
    "register_rule",
    "out_to_in",
    "in_to_out",
    "check_static",
    "shape_of",
    "make_map",
    "scalar_read",
    "all_of",
    "value_name",
    "op_label",
    "rt_var",
]

OpMaps = list[list[IndexingMap]]
#: A per-op rule: ``rule(op, index) -> OpMaps`` (see :func:`out_to_in` and :func:`in_to_out`).
Rule = Callable[[ir.Operation, int], OpMaps]

#: op name -> output-to-input rule: ``rule(op, result_index) -> [maps of operand 0, ...]``.
OUT_TO_IN: dict[str, Rule] = {}
#: op name -> input-to-output rule: ``rule(op, operand_index) -> [maps to result 0, ...]``.
IN_TO_OUT: dict[str, Rule] = {}


def register_rule(table: dict[str, Rule], direction: str, names: Sequence[str], fn: Rule) -> Rule:
    """Add ``fn`` to ``table`` (:data:`OUT_TO_IN` or :data:`IN_TO_OUT`) under each op name of ``names``.

    A rule takes exactly two positional parameters, the op and a result (output-to-input) or operand
    (input-to-output) index. Raises ``ValueError`` (and registers nothing) when an op name already has
    another rule in ``table``, and ``TypeError`` when ``fn`` does not take ``(op, index)``: a decorator
    placed on a helper instead of the rule fails at import instead of being silently replaced.
    """
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != 2 or len(params) != 2:
        raise TypeError(
            f"{direction} indexing rule {fn.__qualname__} must take (op, index), "
            f"not ({', '.join(p.name for p in params)})"
        )
    for n in names:
        old = table.get(n)
        if old is not None and old is not fn:
            raise ValueError(
                f"{direction} indexing rule for '{n}' registered twice: "
                f"{old.__module__}.{old.__qualname__} and {fn.__module__}.{fn.__qualname__}"
            )
    for n in names:
        table[n] = fn
    return fn


def out_to_in(*names: str) -> Callable[[Rule], Rule]:
    """Decorator: register ``fn(op, result_index) -> [maps of operand 0, maps of operand 1, ...]`` as
    the output-to-input rule of the ops ``names`` (full names, ``"stablehlo.pad"``).

    Raises ``ValueError`` when one of the ops already has an output-to-input rule (see
    :func:`register_rule`).
    """

    def deco(fn: Rule) -> Rule:
        return register_rule(OUT_TO_IN, "output-to-input", names, fn)

    return deco


def in_to_out(*names: str) -> Callable[[Rule], Rule]:
    """Decorator: register ``fn(op, operand_index) -> [maps to result 0, maps to result 1, ...]`` as
    the input-to-output rule of the ops ``names``.

    Raises ``ValueError`` when one of the ops already has an input-to-output rule (see
    :func:`register_rule`).
    """

    def deco(fn: Rule) -> Rule:
        return register_rule(IN_TO_OUT, "input-to-output", names, fn)

    return deco



# ----------------------------------------------------------------------------------------------
# helpers


def check_static(op: ir.Operation) -> None:
    """Raise :class:`IndexingError` unless every operand and result of ``op`` has a static shape (a
    non-tensor value such as a token passes)."""
    for v in list(op.operands) + list(op.results):
        t = v.type
        if isinstance(t, ir.RankedTensorType):
            if not ir.RankedTensorType(t).has_static_shape:
                raise IndexingError(f"'{op.name}': indexing maps need static shapes, got {t}")
        elif isinstance(t, ir.ShapedType):
            raise IndexingError(f"'{op.name}': indexing maps need ranked tensors, got {t}")


def shape_of(v: ir.Value) -> list[int]:
    """Static shape of a ranked tensor value (``[]`` for a non-tensor value such as a token)."""
    t = v.type
    if isinstance(t, ir.RankedTensorType):
        return list(ir.RankedTensorType(t).shape)
    return []


def make_map(results, dims_shape_or_vars, ranges=(), rts=(), constraints=None) -> IndexingMap:
    """An :class:`IndexingMap` with result expressions ``results`` over dimensions given as a static shape
    (one ``DimVar`` ``[0, n - 1]`` per extent) or as ``DimVar`` s, with range variables ``ranges``, runtime
    variables ``rts`` and ``constraints`` (expression -> :class:`Interval`)."""
    dv = dims_shape_or_vars
    if dv and not isinstance(dv[0], DimVar):
        dv = dim_vars(dv)
    return IndexingMap(tuple(results), tuple(dv), tuple(ranges), tuple(rts), dict(constraints or {}))


def scalar_read(shape: Sequence[int]) -> IndexingMap:
    """``(d0, ..., dn) -> ()``: a rank-0 operand read for every output element."""
    return make_map((), shape)


def all_of(shape: Sequence[int]) -> IndexingMap:
    """``()[s0, ..., sn] -> (s0, ..., sn)``: one element (of a rank-0 tensor) feeds every output."""
    return IndexingMap(tuple(sym(i) for i in range(len(shape))), (), range_vars(shape))


_SIMPLE_NAME = re.compile(r"^[\w.\-]+$")


def value_name(v: ir.Value) -> str:
    """A readable name: the HLO instruction name the importer kept (a NameLoc), else the SSA name."""
    try:
        loc = v.owner.location if isinstance(v, ir.OpResult) else v.location
        name = getattr(loc, "name_str", None)
        if name and _SIMPLE_NAME.match(name):
            return name
    except Exception:
        pass
    return v.get_name()


def op_label(op: ir.Operation) -> str:
    """``name = stablehlo.op`` for headers (the HLO name when known, else the SSA result names)."""
    op = op.operation
    if len(op.results) == 1:
        return f"{value_name(op.results[0])} = {op.name}"
    if op.results:
        names = list(dict.fromkeys(value_name(r) for r in op.results))
        return f"{', '.join(names)} = {op.name}"
    return op.name


def rt_var(value: ir.Value, feasible: Interval, index: Sequence[Expr]) -> RTVar:
    """A runtime variable: the element of ``value`` at ``index`` (an index operand such as a
    ``dynamic_slice`` start), known to lie in ``feasible``; named after the value for the text form."""
    return RTVar(feasible, value, tuple(index), f"{value_name(value)} = {value.type}")
