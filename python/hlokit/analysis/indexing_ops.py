"""Indexing maps of StableHLO ops and of whole functions.

Source: https://openxla.org/xla/indexing, sections "Indexing Maps for Unfused Ops" and "Indexing Maps
for Fusion" (XLA's implementation: ``xla/hlo/analysis/indexing_analysis.cc``, formerly
``xla/service/gpu/model/indexing_analysis.cc``); op semantics from the StableHLO specification
(https://openxla.org/stablehlo/spec), op by op.

* :func:`output_to_input` — for an op and one of its results: per operand, the maps from the result's
  multi-index to the indices of that operand it reads.
* :func:`input_to_output` — for an op and one of its operands: per result, the maps from the operand's
  multi-index to the result indices that read it.
* :func:`function_output_to_input` / :func:`function_input_to_output` — the same for a ``func.func``
  taken as one fusion: per-op maps composed through its body, simplified and deduplicated.

Rules live in two tables, :data:`OUT_TO_IN` and :data:`IN_TO_OUT`: a new rule is one function
``rule(op, index) -> OpMaps`` in this module under ``@out_to_in("stablehlo.foo")`` or
``@in_to_out("stablehlo.foo")``; a second rule for an op raises ``ValueError`` at import. An op without
a rule raises :class:`~hlokit.analysis.indexing.IndexingError` ("no indexing map for
'stablehlo.custom_call'"), never a guessed map. Shapes must be static.
"""

from __future__ import annotations

import inspect
import re
from typing import Callable, Sequence

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.analysis.indexing import (
    DimVar,
    Expr,
    IndexingError,
    IndexingMap,
    Interval,
    RTVar,
    const,
    dim,
    dim_vars,
    range_vars,
    sym,
)
from hlokit.attributes import AttributeReadError
from hlokit.opsets import ELEMENTWISE

__all__ = [
    "output_to_input",
    "input_to_output",
    "function_output_to_input",
    "function_input_to_output",
    "value_name",
    "op_label",
    "supported_ops",
    "fold_constant_rt_vars",
    "OUT_TO_IN",
    "IN_TO_OUT",
    "out_to_in",
    "in_to_out",
    "register_rule",
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


def supported_ops() -> list[str]:
    """Names of the ops with an output-to-input rule."""
    return sorted(OUT_TO_IN)


def output_to_input(op: ir.Operation | ir.OpView, result_index: int = 0) -> OpMaps:
    """Per operand of ``op``, the simplified maps from result ``result_index`` to that operand.

    Runtime variables that read a ``stablehlo.constant`` at a constant index become that (clamped)
    constant. Raises :class:`IndexingError` for an op without a rule, dynamic shapes, or unsupported
    attributes.
    """
    op = op.operation
    fn = OUT_TO_IN.get(op.name)
    if fn is None:
        raise IndexingError(f"no indexing map for '{op.name}'", op)
    return _simplified_maps(op, fn, result_index)


def _simplified_maps(op: ir.Operation, fn, index: int) -> OpMaps:
    """Run the per-op rule ``fn`` and simplify its maps; an error without an op is located at ``op``."""
    try:
        _check_static(op)
        return [[fold_constant_rt_vars(m).simplify() for m in maps] for maps in fn(op, index)]
    except IndexingError as err:
        if err.op is None:
            raise IndexingError(err.message, op) from None
        raise
    except AttributeReadError as err:  # a missing or malformed attribute (unverified IR)
        raise IndexingError(str(err), op) from None


def _constant_element(value, index: Sequence[int]) -> int | None:
    """The integer element of ``value`` at ``index`` when ``value`` is a ``stablehlo.constant``."""
    if not isinstance(value, ir.OpResult):
        return None
    owner = value.owner
    if owner.name != "stablehlo.constant":
        return None
    attr = attributes.get(owner, "value")
    if not isinstance(attr, ir.DenseIntElementsAttr):
        return None
    if attr.is_splat:
        return int(ir.IntegerAttr(attr.get_splat_value()).value)
    shape = shape_of(value)
    linear = 0
    for i, n in zip(index, shape):
        linear = linear * n + i
    return int(attr[linear])


def fold_constant_rt_vars(m: IndexingMap) -> IndexingMap:
    """Replace each rt var that reads a constant at a constant index by its clamped value."""
    if not m.rt_vars:
        return m
    nr = len(m.range_vars)
    syms: list[Expr] = [sym(j) for j in range(nr)]
    kept = []
    for j, rv in enumerate(m.rt_vars):
        v = None
        if all(e.is_constant() for e in rv.map):
            v = _constant_element(rv.value, [e.const for e in rv.map])
        if v is None:
            syms.append(sym(nr + len(kept)))
            kept.append(rv)
        else:
            syms.append(const(min(max(v, rv.feasible_values.lower), rv.feasible_values.upper)))
    if len(kept) == len(m.rt_vars):
        return m
    return IndexingMap(
        tuple(r.substitute(None, syms) for r in m.results),
        m.dim_vars,
        m.range_vars,
        tuple(RTVar(v.feasible_values, v.value, tuple(x.substitute(None, syms) for x in v.map), v.name) for v in kept),
        {e.substitute(None, syms): iv for e, iv in m.constraints.items()},
    )


def input_to_output(op: ir.Operation | ir.OpView, operand_index: int) -> OpMaps:
    """Per result of ``op``, the simplified maps from operand ``operand_index`` to that result.

    Raises :class:`IndexingError` for an op without an input-to-output rule.
    """
    op = op.operation
    fn = IN_TO_OUT.get(op.name)
    if fn is None:
        if op.name in OUT_TO_IN:
            raise IndexingError(f"no input-to-output indexing map for '{op.name}'", op)
        raise IndexingError(f"no indexing map for '{op.name}'", op)
    return _simplified_maps(op, fn, operand_index)


# ----------------------------------------------------------------------------------------------
# helpers


def _check_static(op: ir.Operation) -> None:
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


def _map(results, dims_shape_or_vars, ranges=(), rts=(), constraints=None) -> IndexingMap:
    dv = dims_shape_or_vars
    if dv and not isinstance(dv[0], DimVar):
        dv = dim_vars(dv)
    return IndexingMap(tuple(results), tuple(dv), tuple(ranges), tuple(rts), dict(constraints or {}))


def _scalar_read(shape: Sequence[int]) -> IndexingMap:
    """``(d0, ..., dn) -> ()``: a rank-0 operand read for every output element."""
    return _map((), shape)


def _all_of(shape: Sequence[int]) -> IndexingMap:
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


def _rt(value: ir.Value, feasible: Interval, index: Sequence[Expr]) -> RTVar:
    return RTVar(feasible, value, tuple(index), f"{value_name(value)} = {value.type}")


# ----------------------------------------------------------------------------------------------
# elementwise


#: The elementwise ops of the StableHLO spec (:data:`hlokit.opsets.ELEMENTWISE`) and ``map`` (whose
#: body is applied elementwise): identity maps, a 0-d operand (``clamp``, ``select``) read whole.
_ELEMENTWISE_NAMES = sorted(ELEMENTWISE) + ["stablehlo.map"]


@out_to_in(*_ELEMENTWISE_NAMES)
def _elementwise_oi(op, r):
    out = shape_of(op.results[r])
    maps = []
    for v in op.operands:
        s = shape_of(v)
        maps.append([_scalar_read(out) if not s and out else IndexingMap.identity(out)])
    return maps


@in_to_out(*_ELEMENTWISE_NAMES)
def _elementwise_io(op, k):
    s = shape_of(op.operands[k])
    return [[_all_of(shape_of(res)) if not s and shape_of(res) else IndexingMap.identity(s)] for res in op.results]


@out_to_in("stablehlo.bitcast_convert")
def _bitcast_convert_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if len(out) == len(src):
        return [[IndexingMap.identity(out)]]
    if len(out) == len(src) + 1:  # wide -> narrow: a new minor dimension
        return [[_map([dim(i) for i in range(len(src))], out)]]
    # narrow -> wide: the operand's minor dimension is read whole
    return [[_map([dim(i) for i in range(len(out))] + [sym(0)], out, range_vars([src[-1]]))]]


@in_to_out("stablehlo.bitcast_convert")
def _bitcast_convert_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if len(out) == len(src):
        return [[IndexingMap.identity(src)]]
    if len(out) == len(src) + 1:
        return [[_map([dim(i) for i in range(len(src))] + [sym(0)], src, range_vars([out[-1]]))]]
    return [[_map([dim(i) for i in range(len(out))], src)]]


# ----------------------------------------------------------------------------------------------
# no operands


@out_to_in("stablehlo.constant", "stablehlo.iota")
def _no_operands_oi(op, r):
    return []


# ----------------------------------------------------------------------------------------------
# broadcast


def _broadcast_dims(op) -> list[int]:
    if op.name == "stablehlo.broadcast":
        sizes = attributes.i64_array(op, "broadcast_sizes")
        return [len(sizes) + i for i in range(len(shape_of(op.operands[0])))]
    return attributes.i64_array(op, "broadcast_dimensions")


@out_to_in("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
def _broadcast_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    bdims = _broadcast_dims(op)
    results = [dim(bdims[i]) if src[i] == out[bdims[i]] else const(0) for i in range(len(src))]
    return [[_map(results, out)]]


@in_to_out("stablehlo.broadcast_in_dim", "stablehlo.broadcast")
def _broadcast_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    bdims = _broadcast_dims(op)
    src_of = {bdims[i]: i for i in range(len(src)) if src[i] == out[bdims[i]]}
    results, ranges = [], []
    for j, n in enumerate(out):
        if j in src_of:
            results.append(dim(src_of[j]))
        else:
            results.append(sym(len(ranges)))
            ranges.append(n)
    return [[_map(results, src, range_vars(ranges))]]


# ----------------------------------------------------------------------------------------------
# transpose, reverse


@out_to_in("stablehlo.transpose")
def _transpose_oi(op, r):
    perm = attributes.i64_array(op, "permutation")
    out = shape_of(op.results[0])
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return [[_map([dim(inv[j]) for j in range(len(perm))], out)]]


@in_to_out("stablehlo.transpose")
def _transpose_io(op, k):
    perm = attributes.i64_array(op, "permutation")
    return [[_map([dim(p) for p in perm], shape_of(op.operands[0]))]]


@out_to_in("stablehlo.reverse")
def _reverse_oi(op, r):
    rev = set(attributes.i64_array(op, "dimensions"))
    out = shape_of(op.results[0])
    return [[_map([(-dim(i) + (n - 1)) if i in rev else dim(i) for i, n in enumerate(out)], out)]]


@in_to_out("stablehlo.reverse")
def _reverse_io(op, k):
    return _reverse_oi(op, 0)


# ----------------------------------------------------------------------------------------------
# reduce (variadic)


@out_to_in("stablehlo.reduce")
def _reduce_oi(op, r):
    n = len(op.operands) // 2
    red = sorted(attributes.i64_array(op, "dimensions"))
    out = shape_of(op.results[r])
    maps = []
    for k in range(n):
        src = shape_of(op.operands[k])
        results, j = [], 0
        for i in range(len(src)):
            if i in red:
                results.append(sym(red.index(i)))
            else:
                results.append(dim(j))
                j += 1
        maps.append([_map(results, out, range_vars([src[i] for i in red]))])
    maps += [[_scalar_read(out)] for _ in range(n)]
    return maps


@in_to_out("stablehlo.reduce")
def _reduce_io(op, k):
    n = len(op.operands) // 2
    red = set(attributes.i64_array(op, "dimensions"))
    if k >= n:
        return [[_all_of(shape_of(res))] for res in op.results]
    src = shape_of(op.operands[k])
    m = _map([dim(i) for i in range(len(src)) if i not in red], src)
    return [[m] for _ in op.results]


# ----------------------------------------------------------------------------------------------
# sort: each result element depends on the whole row of every operand along the sort dimension


def _sort_row_map(op, shape_value) -> IndexingMap:
    axis = attributes.int_value(op, "dimension", -1)
    shape = shape_of(shape_value)
    axis = axis % len(shape) if shape else 0
    results = [sym(0) if i == axis else dim(i) for i in range(len(shape))]
    return _map(results, shape, range_vars([shape[axis]]))


@out_to_in("stablehlo.sort")
def _sort_oi(op, r):
    return [[_sort_row_map(op, op.results[r])] for _ in op.operands]


@in_to_out("stablehlo.sort")
def _sort_io(op, k):
    return [[_sort_row_map(op, op.operands[k])] for _ in op.results]


# ----------------------------------------------------------------------------------------------
# slice, dynamic_slice, dynamic_update_slice


@out_to_in("stablehlo.slice")
def _slice_oi(op, r):
    start, strides = attributes.i64_array(op, "start_indices"), attributes.i64_array(op, "strides")
    out = shape_of(op.results[0])
    return [[_map([dim(i) * strides[i] + start[i] for i in range(len(out))], out)]]


@in_to_out("stablehlo.slice")
def _slice_io(op, k):
    start, strides = attributes.i64_array(op, "start_indices"), attributes.i64_array(op, "strides")
    out = shape_of(op.results[0])
    dvars, results, cons = [], [], {}
    for i, n in enumerate(out):
        dvars.append(DimVar(Interval(start[i], start[i] + (n - 1) * strides[i])))
        results.append((dim(i) - start[i]).floordiv(strides[i]))
        if strides[i] > 1:
            cons[(dim(i) - start[i]).mod(strides[i])] = Interval(0, 0)
    return [[_map(results, dvars, constraints=cons)]]


@out_to_in("stablehlo.dynamic_slice")
def _dynamic_slice_oi(op, r):
    src = shape_of(op.operands[0])
    out = shape_of(op.results[0])
    starts = list(op.operands)[1:]
    rts = [_rt(starts[i], Interval(0, src[i] - out[i]), ()) for i in range(len(src))]
    operand = _map([dim(i) + sym(i) for i in range(len(src))], out, rts=rts)
    return [[operand]] + [[_scalar_read(out)] for _ in starts]


@in_to_out("stablehlo.dynamic_slice")
def _dynamic_slice_io(op, k):
    src = shape_of(op.operands[0])
    out = shape_of(op.results[0])
    if k > 0:
        return [[_all_of(out)]]
    starts = list(op.operands)[1:]
    rts = [_rt(starts[i], Interval(0, src[i] - out[i]), ()) for i in range(len(src))]
    cons = {dim(i) - sym(i): Interval(0, out[i] - 1) for i in range(len(src))}
    return [[_map([dim(i) - sym(i) for i in range(len(src))], src, rts=rts, constraints=cons)]]


@out_to_in("stablehlo.dynamic_update_slice")
def _dus_oi(op, r):
    out = shape_of(op.results[0])
    upd = shape_of(op.operands[1])
    starts = list(op.operands)[2:]
    rts = [_rt(starts[i], Interval(0, out[i] - upd[i]), ()) for i in range(len(out))]
    update = _map([dim(i) - sym(i) for i in range(len(out))], out, rts=rts)
    return [[IndexingMap.identity(out)], [update]] + [[_scalar_read(out)] for _ in starts]


@in_to_out("stablehlo.dynamic_update_slice")
def _dus_io(op, k):
    out = shape_of(op.results[0])
    if k == 0:
        return [[IndexingMap.identity(out)]]
    if k > 1:
        return [[_all_of(out)]]
    upd = shape_of(op.operands[1])
    starts = list(op.operands)[2:]
    rts = [_rt(starts[i], Interval(0, out[i] - upd[i]), ()) for i in range(len(out))]
    return [[_map([dim(i) + sym(i) for i in range(len(out))], upd, rts=rts)]]


# ----------------------------------------------------------------------------------------------
# gather


def _gather_layout(op):
    """Dimension bookkeeping of a gather (spec ``gather``, batching dims included).

    Returns ``(src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, sim,
    batching_out)``: output batch dim ``batch_out[p]`` runs along indices dim ``idx_batch[p]``; output
    offset dim ``offset_dims[m]`` along operand dim ``noncollapsed[m]``; start index ``j`` (of ``k``)
    is added to operand dim ``sim[j]``; operand batching dim ``i`` is indexed by output dim
    ``batching_out[i]``.
    """
    dn = stablehlo.GatherDimensionNumbers(attributes.get(op, "dimension_numbers"))
    src, idx, out = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    sizes = attributes.i64_array(op, "slice_sizes")
    ivd = dn.index_vector_dim
    k = idx[ivd] if ivd < len(idx) else 1
    offset_dims = list(dn.offset_dims)
    batching = dict(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    collapsed = set(dn.collapsed_slice_dims) | set(batching)
    batch_out = [i for i in range(len(out)) if i not in offset_dims]
    idx_batch = [q for q in range(len(idx)) if q != ivd]
    noncollapsed = [i for i in range(len(src)) if i not in collapsed]
    # operand batching dim -> the output (batch) dim running along its indices batching dim
    batching_out = {i: batch_out[idx_batch.index(q)] for i, q in batching.items()}
    return src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, list(dn.start_index_map), batching_out


@out_to_in("stablehlo.gather")
def _gather_oi(op, r):
    """Operand: dim ``i`` reads ``start_i + offset_i``, where ``start_i`` is an rt var (the index
    vector element of ``indices`` at the output's batch position, clamped to ``[0, dim_i - size_i]``)
    when ``i`` is in ``start_index_map`` and ``offset_i`` the output offset dim of ``i`` unless ``i`` is
    collapsed, plus the output batch position for an operand batching dim (the simplified gather of
    https://openxla.org/xla/indexing, section "Gather", is the case ``offset_dims = [1..rank]``, ``indices [N, k]``).
    Indices: the whole index vector at the output's batch position (a range var)."""
    src, idx, out, sizes, ivd, k, batch_out, idx_batch, offset_dims, noncollapsed, sim, batching_out = _gather_layout(op)
    indices = op.operands[1]

    def index_position(j):
        pos = [const(0)] * len(idx)
        for p, q in enumerate(idx_batch):
            pos[q] = dim(batch_out[p])
        if ivd < len(idx):
            pos[ivd] = const(j) if j is not None else sym(0)
        return pos

    rts = [_rt(indices, Interval(0, src[sim[j]] - sizes[sim[j]]), index_position(j)) for j in range(k)]
    results = []
    for i in range(len(src)):
        e = const(0)
        if i in sim:
            e = e + sym(sim.index(i))
        if i in noncollapsed:
            e = e + dim(offset_dims[noncollapsed.index(i)])
        if i in batching_out:
            e = e + dim(batching_out[i])
        results.append(e)
    operand = _map(results, out, rts=rts)
    index_map = _map(index_position(None), out, range_vars([k] if ivd < len(idx) else []))
    return [[operand], [index_map]]


@in_to_out("stablehlo.gather")
def _gather_io(op, k):
    """Indices -> output only (an index vector feeds a whole slice); the operand -> output map would
    invert runtime values and is refused."""
    src, idx, out, sizes, ivd, n, batch_out, idx_batch, offset_dims, noncollapsed, sim, _ = _gather_layout(op)
    if k == 0:
        raise IndexingError("no input-to-output indexing map for the operand of 'stablehlo.gather'")
    results, ranges = [const(0)] * len(out), []
    for p, q in enumerate(idx_batch):
        results[batch_out[p]] = dim(q)
    for o in offset_dims:
        results[o] = sym(len(ranges))
        ranges.append(out[o])
    return [[_map(results, idx, range_vars(ranges))]]


# ----------------------------------------------------------------------------------------------
# reshape and bitcast


def _linearize(index: Sequence[Expr], shape: Sequence[int]) -> Expr:
    out = const(0)
    for e, n in zip(index, shape):
        out = out * n + e
    return out


def _delinearize(linear: Expr, shape: Sequence[int]) -> list[Expr]:
    out = []
    stride = 1
    strides = []
    for n in reversed(shape):
        strides.append(stride)
        stride *= n
    strides.reverse()
    for i, (n, st) in enumerate(zip(shape, strides)):
        e = linear.floordiv(st)
        if i > 0:
            e = e.mod(n)
        out.append(e)
    return out


def _relayout_map(src_shape, src_order, dst_shape, dst_order) -> IndexingMap:
    """Map from a ``src_shape`` index to the ``dst_shape`` index holding the same element, the
    elements being laid out with dims in ``*_order`` (major to minor)."""
    linear = _linearize([dim(d) for d in src_order], [src_shape[d] for d in src_order])
    comps = _delinearize(linear, [dst_shape[d] for d in dst_order])
    results = [const(0)] * len(dst_shape)
    for d, e in zip(dst_order, comps):
        results[d] = e
    return _map(results, src_shape)


@out_to_in("stablehlo.reshape")
def _reshape_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    return [[_relayout_map(out, range(len(out)), src, range(len(src)))]]


@in_to_out("stablehlo.reshape")
def _reshape_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    return [[_relayout_map(src, range(len(src)), out, range(len(out)))]]


def _layout_order(op, name: str, rank: int) -> list[int]:
    """Major-to-minor dim order from an XLA ``minor_to_major`` layout attribute (default row-major)."""
    if attributes.has(op, name):
        return list(reversed(attributes.i64_array(op, name)))
    return list(range(rank))


@out_to_in("mhlo.bitcast")
def _bitcast_oi(op, r):
    """XLA ``bitcast`` (imported from HLO text as ``mhlo.bitcast``): transpose-reshape-transpose
    given by the source and result layouts."""
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    return [[_relayout_map(out, _layout_order(op, "result_layout", len(out)), src, _layout_order(op, "source_layout", len(src)))]]


@in_to_out("mhlo.bitcast")
def _bitcast_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    return [[_relayout_map(src, _layout_order(op, "source_layout", len(src)), out, _layout_order(op, "result_layout", len(out)))]]


# ----------------------------------------------------------------------------------------------
# concatenate


@out_to_in("stablehlo.concatenate")
def _concatenate_oi(op, r):
    axis = attributes.int_value(op, "dimension")
    out = shape_of(op.results[0])
    maps, offset = [], 0
    for v in op.operands:
        n = shape_of(v)[axis]
        dvars = [DimVar(Interval(offset, offset + n - 1)) if i == axis else DimVar(Interval(0, s - 1)) for i, s in enumerate(out)]
        maps.append([_map([dim(i) - offset if i == axis else dim(i) for i in range(len(out))], dvars)])
        offset += n
    return maps


@in_to_out("stablehlo.concatenate")
def _concatenate_io(op, k):
    axis = attributes.int_value(op, "dimension")
    offset = sum(shape_of(v)[axis] for v in list(op.operands)[:k])
    src = shape_of(op.operands[k])
    return [[_map([dim(i) + offset if i == axis else dim(i) for i in range(len(src))], src)]]


# ----------------------------------------------------------------------------------------------
# dot_general, dot


def _dot_numbers(op):
    lhs = shape_of(op.operands[0])
    if op.name == "stablehlo.dot":
        return [], [], [len(lhs) - 1], [0]
    dn = stablehlo.DotDimensionNumbers(attributes.get(op, "dot_dimension_numbers"))
    return (
        list(dn.lhs_batching_dimensions),
        list(dn.rhs_batching_dimensions),
        list(dn.lhs_contracting_dimensions),
        list(dn.rhs_contracting_dimensions),
    )


@out_to_in("stablehlo.dot_general", "stablehlo.dot")
def _dot_oi(op, r):
    lb, rb, lc, rc = _dot_numbers(op)
    lhs, rhs, out = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    lfree = [i for i in range(len(lhs)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(rhs)) if i not in rb and i not in rc]
    ranges = range_vars([lhs[i] for i in lc])

    def operand_map(rank, batch, contracting, free, free_offset):
        res = [const(0)] * rank
        for j, i in enumerate(batch):
            res[i] = dim(j)
        for j, i in enumerate(free):
            res[i] = dim(free_offset + j)
        for j, i in enumerate(contracting):
            res[i] = sym(j)
        return _map(res, out, ranges)

    return [
        [operand_map(len(lhs), lb, lc, lfree, len(lb))],
        [operand_map(len(rhs), rb, rc, rfree, len(lb) + len(lfree))],
    ]


@in_to_out("stablehlo.dot_general", "stablehlo.dot")
def _dot_io(op, k):
    lb, rb, lc, rc = _dot_numbers(op)
    lhs, rhs = shape_of(op.operands[0]), shape_of(op.operands[1])
    lfree = [i for i in range(len(lhs)) if i not in lb and i not in lc]
    rfree = [i for i in range(len(rhs)) if i not in rb and i not in rc]
    if k == 0:
        res = [dim(i) for i in lb] + [dim(i) for i in lfree] + [sym(j) for j in range(len(rfree))]
        return [[_map(res, lhs, range_vars([rhs[i] for i in rfree]))]]
    res = [dim(i) for i in rb] + [sym(j) for j in range(len(lfree))] + [dim(i) for i in rfree]
    return [[_map(res, rhs, range_vars([lhs[i] for i in lfree]))]]


# ----------------------------------------------------------------------------------------------
# pad


def _pad_operand_map(out, src, low, high, interior) -> IndexingMap:
    """Map from an index of the padded result to the operand element it holds (https://openxla.org/xla/indexing, section "Pad")."""
    dvars, results, cons = [], [], {}
    for i, n in enumerate(src):
        step = interior[i] + 1
        lo = low[i]
        first = lo if lo >= 0 else lo + (-(lo) + step - 1) // step * step
        last = lo + (n - 1) * step
        if last > out[i] - 1:
            last = lo + ((out[i] - 1 - lo) // step) * step
        if n == 0:
            first, last = 0, -1
        dvars.append(DimVar(Interval(first, last)))
        results.append((dim(i) - lo).floordiv(step))
        if step > 1:
            cons[(dim(i) - lo).mod(step)] = Interval(0, 0)
    return _map(results, dvars, constraints=cons)


@out_to_in("stablehlo.pad")
def _pad_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    low, high, interior = attributes.i64_array(op, "edge_padding_low"), attributes.i64_array(op, "edge_padding_high"), attributes.i64_array(op, "interior_padding")
    return [[_pad_operand_map(out, src, low, high, interior)], [_scalar_read(out)]]


@in_to_out("stablehlo.pad")
def _pad_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if k == 1:
        return [[_all_of(out)]]
    low, interior = attributes.i64_array(op, "edge_padding_low"), attributes.i64_array(op, "interior_padding")
    results = [dim(i) * (interior[i] + 1) + low[i] for i in range(len(src))]
    cons = {results[i]: Interval(0, out[i] - 1) for i in range(len(src))}
    return [[_map(results, src, constraints=cons)]]


# ----------------------------------------------------------------------------------------------
# reduce_window: a window map over the padded, base-dilated operand composed with a pad map


def _window_attrs(op):
    n = len(op.operands) // 2
    src = shape_of(op.operands[0])
    rank = len(src)
    win = attributes.i64_array(op, "window_dimensions")
    strides = attributes.i64_array(op, "window_strides", [1] * rank)
    base = attributes.i64_array(op, "base_dilations", [1] * rank)
    wdil = attributes.i64_array(op, "window_dilations", [1] * rank)
    pad = attributes.i64_array(op, "padding", [0] * (2 * rank))
    return n, src, win, strides, base, wdil, pad[0::2], pad[1::2]


@out_to_in("stablehlo.reduce_window")
def _reduce_window_oi(op, r):
    n, src, win, strides, base, wdil, plo, phi = _window_attrs(op)
    out = shape_of(op.results[r])
    results, ranges = [], []
    for i in range(len(src)):
        e = dim(i) * strides[i]
        if win[i] > 1:
            e = e + sym(len(ranges)) * wdil[i]
            ranges.append(win[i])
        results.append(e)
    window = _map(results, out, range_vars(ranges))
    padded = [plo[i] + (src[i] - 1) * base[i] + 1 + phi[i] if src[i] else plo[i] + phi[i] for i in range(len(src))]
    pad = _pad_operand_map(padded, src, plo, phi, [b - 1 for b in base])
    operand = window.compose(pad)
    maps = [[operand] for _ in range(n)]
    return maps + [[_scalar_read(out)] for _ in range(n)]


@in_to_out("stablehlo.reduce_window")
def _reduce_window_io(op, k):
    """Operand element ``x`` sits at ``x * base_dilation + pad_low`` of the padded input; output ``d``
    reads it through window position ``s`` when ``d * stride + s * window_dilation`` is that place."""
    n, src, win, strides, base, wdil, plo, phi = _window_attrs(op)
    outs = [shape_of(r) for r in op.results]
    if k >= n:
        return [[_all_of(o)] for o in outs]
    results, ranges, cons = [], [], {}
    for i in range(len(src)):
        e = dim(i) * base[i] + plo[i]
        if win[i] > 1:
            e = e - sym(len(ranges)) * wdil[i]
            ranges.append(win[i])
        if strides[i] > 1:
            cons[e.mod(strides[i])] = Interval(0, 0)
        q = e.floordiv(strides[i])
        cons[q] = Interval(0, outs[0][i] - 1)
        results.append(q)
    m = _map(results, src, range_vars(ranges), constraints=cons)
    return [[m] for _ in outs]


# ----------------------------------------------------------------------------------------------
# convolution (feature and batch groups, dilations, padding, window reversal)


def _conv_params(op) -> tuple:
    """What both directions of ``convolution``'s maps read: ``(feature_group_count, batch_group_count,
    dimension_numbers, (lhs, rhs, result shapes), (input, kernel, output spatial dimensions),
    (window_strides, padding flattened as [lo0, hi0, lo1, ...], lhs_dilation, rhs_dilation,
    window_reversal))``, each attribute at its spec default when absent."""
    fg = attributes.int_value(op, "feature_group_count", 1)
    bg = attributes.int_value(op, "batch_group_count", 1)
    dn = stablehlo.ConvDimensionNumbers(attributes.get(op, "dimension_numbers"))
    shapes = shape_of(op.operands[0]), shape_of(op.operands[1]), shape_of(op.results[0])
    spatial = list(dn.input_spatial_dimensions), list(dn.kernel_spatial_dimensions), list(dn.output_spatial_dimensions)
    ns = len(spatial[0])
    window = (
        attributes.i64_array(op, "window_strides", [1] * ns),
        attributes.i64_array(op, "padding", [0] * (2 * ns)),
        attributes.i64_array(op, "lhs_dilation", [1] * ns),
        attributes.i64_array(op, "rhs_dilation", [1] * ns),
        attributes.i64_array(op, "window_reversal", [0] * ns),
    )
    return fg, bg, dn, shapes, spatial, window


@out_to_in("stablehlo.convolution")
def _convolution_oi(op, r):
    """Output-to-input maps of ``convolution`` (spec: feature and batch groups, window reversal).

    lhs: read at ``out_spatial * stride + s * rhs_dilation`` in the padded, lhs-dilated input (a pad
    map composed in), the input features of the output feature's group (a range var), the batch
    ``(o floordiv (O/B)) * (N/B) + b`` with batch groups. rhs: the output feature, the window positions
    that meet the input (not padding), all its input features.
    """
    fg, bg, dn, (lhs, rhs, out), (isp, ksp, osp), (strides, pad, ldil, rdil, rev) = _conv_params(op)
    ns = len(isp)
    # symbols: s0..s{ns-1} window positions, s{ns} input feature (within the group)
    ck = rhs[dn.kernel_input_feature_dimension]
    nout, nbatch = out[dn.output_feature_dimension], out[dn.output_batch_dimension]
    ranges = range_vars([rhs[k] for k in ksp] + [ck])
    # lhs: window map into the padded dilated input, then the pad map
    padded_shape, win_res = list(lhs), [const(0)] * len(lhs)
    win_res[dn.input_batch_dimension] = dim(dn.output_batch_dimension)
    if bg > 1:
        win_res[dn.input_batch_dimension] += dim(dn.output_feature_dimension).floordiv(nout // bg) * nbatch
    win_res[dn.input_feature_dimension] = sym(ns)
    if fg > 1:
        win_res[dn.input_feature_dimension] += dim(dn.output_feature_dimension).floordiv(nout // fg) * ck
    plo, phi, interior = [0] * len(lhs), [0] * len(lhs), [0] * len(lhs)
    for j in range(ns):
        i = isp[j]
        win_res[i] = dim(osp[j]) * strides[j] + sym(j) * rdil[j]
        plo[i], phi[i], interior[i] = pad[2 * j], pad[2 * j + 1], ldil[j] - 1
        padded_shape[i] = pad[2 * j] + ((lhs[i] - 1) * ldil[j] + 1 if lhs[i] else 0) + pad[2 * j + 1]
    window = _map(win_res, out, ranges)
    lhs_map = window.compose(_pad_operand_map(padded_shape, lhs, plo, phi, interior))
    rhs_res = [const(0)] * len(rhs)
    rhs_res[dn.kernel_output_feature_dimension] = dim(dn.output_feature_dimension)
    rhs_res[dn.kernel_input_feature_dimension] = sym(ns)
    for j in range(ns):  # window position s_j meets kernel element s_j, or n - 1 - s_j reversed
        rhs_res[ksp[j]] = (-sym(j) + (rhs[ksp[j]] - 1)) if rev[j] else sym(j)
    # the kernel positions read are those whose input position is not padding
    rhs_map = IndexingMap(tuple(rhs_res), lhs_map.dim_vars, lhs_map.range_vars, (), dict(lhs_map.constraints))
    return [[lhs_map], [rhs_map]]


@in_to_out("stablehlo.convolution")
def _convolution_io(op, k):
    """Input-to-output maps of ``convolution``. An lhs element sits at
    ``x * lhs_dilation + pad_low`` of the padded input; output position ``y`` reads it through window
    position ``s`` when ``y * stride + s * rhs_dilation`` is that place. lhs: all output features, a
    range var per window position; rhs: all batches, a range var per input position."""
    _convolution_oi(op, 0)  # the same restrictions
    fg, bg, dn, (lhs, rhs, out), (isp, ksp, osp), (strides, pad, ldil, rdil, rev) = _conv_params(op)
    ns = len(isp)
    results, ranges, cons = [const(0)] * len(out), [], {}

    def range_var(n):
        ranges.append(n)
        return sym(len(ranges) - 1)

    nout, nbatch = out[dn.output_feature_dimension], out[dn.output_batch_dimension]
    if k == 0:
        batch, feature = dim(dn.input_batch_dimension), dim(dn.input_feature_dimension)
        if bg > 1:  # lhs batch chunk g feeds output feature chunk g
            results[dn.output_batch_dimension] = batch.mod(nbatch)
            results[dn.output_feature_dimension] = batch.floordiv(nbatch) * (nout // bg) + range_var(nout // bg)
        elif fg > 1:  # input feature group g feeds output feature group g
            ck = rhs[dn.kernel_input_feature_dimension]
            results[dn.output_batch_dimension] = batch
            results[dn.output_feature_dimension] = feature.floordiv(ck) * (nout // fg) + range_var(nout // fg)
        else:
            results[dn.output_batch_dimension] = batch
            results[dn.output_feature_dimension] = range_var(nout)
    else:
        results[dn.output_batch_dimension] = range_var(out[dn.output_batch_dimension])
        results[dn.output_feature_dimension] = dim(dn.kernel_output_feature_dimension)
    for j in range(ns):
        if k == 0:
            place = dim(isp[j]) * ldil[j] + pad[2 * j] - range_var(rhs[ksp[j]]) * rdil[j]
        else:
            pos = (-dim(ksp[j]) + (rhs[ksp[j]] - 1)) if rev[j] else dim(ksp[j])
            place = range_var(lhs[isp[j]]) * ldil[j] + pad[2 * j] - pos * rdil[j]
        if strides[j] > 1:
            cons[place.mod(strides[j])] = Interval(0, 0)
        y = place.floordiv(strides[j])
        cons[y] = Interval(0, out[osp[j]] - 1)
        results[osp[j]] = y
    return [[_map(results, lhs if k == 0 else rhs, range_vars(ranges), constraints=cons)]]


# ----------------------------------------------------------------------------------------------
# calls: the callee's maps (a call is a fusion)


def _callee(op) -> ir.Operation:
    name = attributes.str_value(op, "callee")
    parent = op.parent
    while parent is not None and parent.name != "builtin.module":
        parent = parent.parent
    if parent is None:
        raise IndexingError(f"'func.call': cannot find @{name}")
    for f in parent.regions[0].blocks[0].operations:
        if f.operation.name == "func.func" and attributes.str_value(f, "sym_name", None) == name:
            return f.operation
    raise IndexingError(f"'func.call': cannot find @{name}")


@out_to_in("func.call")
def _call_oi(op, r):
    maps = function_output_to_input(_callee(op), r)
    return [maps.get(k, []) for k in range(len(op.operands))]


@in_to_out("func.call")
def _call_io(op, k):
    maps = function_input_to_output(_callee(op), k)
    return [maps.get(j, []) for j in range(len(op.results))]


# ----------------------------------------------------------------------------------------------
# fusion: composition through a function body


class _MapSet:
    """Insertion-ordered set of simplified maps; drops known-empty maps and duplicates."""

    __slots__ = ("maps",)

    def __init__(self):
        self.maps: dict = {}

    def add(self, m: IndexingMap):
        m = fold_constant_rt_vars(m).simplify()
        if m.is_known_empty():
            return
        self.maps.setdefault(m.key(), m)

    def __iter__(self):
        return iter(self.maps.values())


def _body(func: ir.Operation) -> ir.Block:
    func = func.operation
    if not func.regions or not func.regions[0].blocks:
        raise IndexingError(f"'{func.name}' has no body")
    return func.regions[0].blocks[0]


def function_output_to_input(func: ir.Operation | ir.OpView, result_index: int = 0) -> dict[int, list[IndexingMap]]:
    """Maps from result ``result_index`` of ``func`` (a ``func.func``, taken as one fusion) to each
    argument it reads: ``{argument number: [maps]}`` (arguments not read are absent).

    Each op's output-to-input maps are composed with the maps reaching its results (users before
    producers), simplified; equal maps are kept once, different ones all (https://openxla.org/xla/indexing, section "Indexing Maps for Fusion").
    Raises :class:`IndexingError` naming the first op on the way without an indexing map.
    """
    block = _body(func)
    ops = list(block.operations)
    root = ops[-1].operands[result_index]
    maps: dict[ir.Value, _MapSet] = {}
    start = _MapSet()
    start.add(IndexingMap.identity(shape_of(root)))
    maps[root] = start
    for op in reversed(ops[:-1]):
        op = op.operation
        reached = [(i, maps[res]) for i, res in enumerate(op.results) if res in maps]
        if not reached:
            continue
        for i, consumer_maps in reached:
            per_operand = output_to_input(op, i)
            for operand, producer_maps in zip(op.operands, per_operand):
                target = maps.setdefault(operand, _MapSet())
                for cm in consumer_maps:
                    for pm in producer_maps:
                        target.add(cm.compose(pm))
    out = {}
    for arg in block.arguments:
        if arg in maps and maps[arg].maps:
            out[arg.arg_number] = list(maps[arg])
    return out


def function_input_to_output(func: ir.Operation | ir.OpView, arg_index: int) -> dict[int, list[IndexingMap]]:
    """Maps from argument ``arg_index`` of ``func`` to each result that reads it:
    ``{result number: [maps]}``, composed op by op in program order (the same section, other direction)."""
    block = _body(func)
    ops = list(block.operations)
    arg = block.arguments[arg_index]
    maps: dict[ir.Value, _MapSet] = {}
    start = _MapSet()
    start.add(IndexingMap.identity(shape_of(arg)))
    maps[arg] = start
    for op in ops[:-1]:
        op = op.operation
        reached = [(k, maps[v]) for k, v in enumerate(op.operands) if v in maps]
        for k, producer_maps in reached:
            per_result = input_to_output(op, k)
            for res, consumer_maps in zip(op.results, per_result):
                target = maps.setdefault(res, _MapSet())
                for pm in producer_maps:
                    for cm in consumer_maps:
                        target.add(pm.compose(cm))
    out = {}
    for j, v in enumerate(ops[-1].operands):
        if v in maps and maps[v].maps:
            out.setdefault(j, [])
            out[j].extend(maps[v])
    return out
