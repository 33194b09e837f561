"""Indexing rules of the elementwise and data-movement ops: elementwise ops and ``map``,
``bitcast_convert``, ``constant`` / ``iota``, ``broadcast_in_dim`` / ``broadcast``, ``transpose``, ``reverse``,
``slice``, ``dynamic_slice``, ``dynamic_update_slice``, ``reshape``, ``mhlo.bitcast`` and ``concatenate``.

Each map follows the op's definition in the StableHLO specification (https://openxla.org/stablehlo/spec)
and XLA's indexing analysis (https://openxla.org/xla/indexing, "Indexing Maps for Unfused Ops");
registration: :func:`hlokit.analysis.indexing_rules.out_to_in` / :func:`~hlokit.analysis.indexing_rules.in_to_out`.
"""

from __future__ import annotations

from typing import Sequence

from hlokit import attributes
from hlokit.analysis.indexing import (
    DimVar,
    Expr,
    IndexingMap,
    Interval,
    const,
    dim,
    range_vars,
    sym,
)
from hlokit.analysis.indexing_rules import (
    all_of,
    in_to_out,
    make_map,
    out_to_in,
    rt_var,
    scalar_read,
    shape_of,
)
from hlokit.opsets import ELEMENTWISE


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
        maps.append([scalar_read(out) if not s and out else IndexingMap.identity(out)])
    return maps


@in_to_out(*_ELEMENTWISE_NAMES)
def _elementwise_io(op, k):
    s = shape_of(op.operands[k])
    return [[all_of(shape_of(res)) if not s and shape_of(res) else IndexingMap.identity(s)] for res in op.results]


@out_to_in("stablehlo.bitcast_convert")
def _bitcast_convert_oi(op, r):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if len(out) == len(src):
        return [[IndexingMap.identity(out)]]
    if len(out) == len(src) + 1:  # wide -> narrow: a new minor dimension
        return [[make_map([dim(i) for i in range(len(src))], out)]]
    # narrow -> wide: the operand's minor dimension is read whole
    return [[make_map([dim(i) for i in range(len(out))] + [sym(0)], out, range_vars([src[-1]]))]]


@in_to_out("stablehlo.bitcast_convert")
def _bitcast_convert_io(op, k):
    out, src = shape_of(op.results[0]), shape_of(op.operands[0])
    if len(out) == len(src):
        return [[IndexingMap.identity(src)]]
    if len(out) == len(src) + 1:
        return [[make_map([dim(i) for i in range(len(src))] + [sym(0)], src, range_vars([out[-1]]))]]
    return [[make_map([dim(i) for i in range(len(out))], src)]]


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
    return [[make_map(results, out)]]


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
    return [[make_map(results, src, range_vars(ranges))]]


# ----------------------------------------------------------------------------------------------
# transpose, reverse


@out_to_in("stablehlo.transpose")
def _transpose_oi(op, r):
    perm = attributes.i64_array(op, "permutation")
    out = shape_of(op.results[0])
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return [[make_map([dim(inv[j]) for j in range(len(perm))], out)]]


@in_to_out("stablehlo.transpose")
def _transpose_io(op, k):
    perm = attributes.i64_array(op, "permutation")
    return [[make_map([dim(p) for p in perm], shape_of(op.operands[0]))]]


@out_to_in("stablehlo.reverse")
def _reverse_oi(op, r):
    rev = set(attributes.i64_array(op, "dimensions"))
    out = shape_of(op.results[0])
    return [[make_map([(-dim(i) + (n - 1)) if i in rev else dim(i) for i, n in enumerate(out)], out)]]


@in_to_out("stablehlo.reverse")
def _reverse_io(op, k):
    return _reverse_oi(op, 0)


# ----------------------------------------------------------------------------------------------
# slice, dynamic_slice, dynamic_update_slice


@out_to_in("stablehlo.slice")
def _slice_oi(op, r):
    start, strides = attributes.i64_array(op, "start_indices"), attributes.i64_array(op, "strides")
    out = shape_of(op.results[0])
    return [[make_map([dim(i) * strides[i] + start[i] for i in range(len(out))], out)]]


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
    return [[make_map(results, dvars, constraints=cons)]]


@out_to_in("stablehlo.dynamic_slice")
def _dynamic_slice_oi(op, r):
    src = shape_of(op.operands[0])
    out = shape_of(op.results[0])
    starts = list(op.operands)[1:]
    rts = [rt_var(starts[i], Interval(0, src[i] - out[i]), ()) for i in range(len(src))]
    operand = make_map([dim(i) + sym(i) for i in range(len(src))], out, rts=rts)
    return [[operand]] + [[scalar_read(out)] for _ in starts]


@in_to_out("stablehlo.dynamic_slice")
def _dynamic_slice_io(op, k):
    src = shape_of(op.operands[0])
    out = shape_of(op.results[0])
    if k > 0:
        return [[all_of(out)]]
    starts = list(op.operands)[1:]
    rts = [rt_var(starts[i], Interval(0, src[i] - out[i]), ()) for i in range(len(src))]
    cons = {dim(i) - sym(i): Interval(0, out[i] - 1) for i in range(len(src))}
    return [[make_map([dim(i) - sym(i) for i in range(len(src))], src, rts=rts, constraints=cons)]]


@out_to_in("stablehlo.dynamic_update_slice")
def _dus_oi(op, r):
    out = shape_of(op.results[0])
    upd = shape_of(op.operands[1])
    starts = list(op.operands)[2:]
    rts = [rt_var(starts[i], Interval(0, out[i] - upd[i]), ()) for i in range(len(out))]
    update = make_map([dim(i) - sym(i) for i in range(len(out))], out, rts=rts)
    return [[IndexingMap.identity(out)], [update]] + [[scalar_read(out)] for _ in starts]


@in_to_out("stablehlo.dynamic_update_slice")
def _dus_io(op, k):
    out = shape_of(op.results[0])
    if k == 0:
        return [[IndexingMap.identity(out)]]
    if k > 1:
        return [[all_of(out)]]
    upd = shape_of(op.operands[1])
    starts = list(op.operands)[2:]
    rts = [rt_var(starts[i], Interval(0, out[i] - upd[i]), ()) for i in range(len(out))]
    return [[make_map([dim(i) + sym(i) for i in range(len(out))], upd, rts=rts)]]


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
    return make_map(results, src_shape)


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
        maps.append([make_map([dim(i) - offset if i == axis else dim(i) for i in range(len(out))], dvars)])
        offset += n
    return maps


@in_to_out("stablehlo.concatenate")
def _concatenate_io(op, k):
    axis = attributes.int_value(op, "dimension")
    offset = sum(shape_of(v)[axis] for v in list(op.operands)[:k])
    src = shape_of(op.operands[k])
    return [[make_map([dim(i) + offset if i == axis else dim(i) for i in range(len(src))], src)]]
