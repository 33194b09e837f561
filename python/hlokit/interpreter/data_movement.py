"""Data-movement ops of the reference interpreter: semantics on whole numpy arrays.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), the section of each op's name.

One pure semantics function per op, named after the spec op and taking the spec's operands and attributes
as plain arguments (numpy arrays, tuples of ints); one adapter per op that unpacks the MLIR op and calls it.
Data movement never computes on element values itself (sort and scatter do only through their regions),
so every element type (ml_dtypes included), NaN payloads and signed zeros pass through bit for bit.

Ops: broadcast_in_dim, concatenate, dynamic_slice, dynamic_update_slice, pad, reshape, reverse, slice,
transpose; sort, gather, scatter; the dynamic variants dynamic_broadcast_in_dim, dynamic_reshape, dynamic_pad,
dynamic_gather, real_dynamic_slice, get_dimension_size (spec sections of the same names) and
set_dimension_size (bounded dynamism); XLA's ``ApproxTopK`` custom call (``jax.lax.approx_max_k``), which
is a sort.
Region-taking ops (sort, scatter) run their regions on whole arrays through
:func:`hlokit.interpreter.regions.region_callable`. :func:`window_view` (every window of a padded
operand as one strided view) and :func:`padding_pairs` serve the window ops of ``reduce`` and
``convolution``.
"""

from __future__ import annotations

import builtins
import functools
import math
from typing import Callable, Sequence

import numpy as np
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
import hlokit.dtypes as hdt
from hlokit.interpreter.arrays import (  # noqa: F401  (pad, scatter, window_view, padding_pairs: spec ops / helpers of this family)
    index_vectors as _index_vectors,
    pad,
    padding_pairs,
    place as _place,
    pyslice as _pyslice,
    scatter,
    window_view,
)
from hlokit.interpreter.errors import InterpreterError
from hlokit.interpreter.numerics import iota
from hlokit.interpreter.registry import OpImpl, prepared, register, register_custom_call, with_kernel
from hlokit.interpreter.regions import (
    comparator_keys,
    is_elementwise_region,
    known_reduction,
    region_callable,
    returns_update,
)
from hlokit.interpreter.values import dtype_of

__all__ = [
    "broadcast_in_dim",
    "concatenate",
    "dynamic_slice",
    "dynamic_update_slice",
    "pad",
    "reshape",
    "reverse",
    "slice",
    "transpose",
    "sort",
    "approx_top_k",
    "gather",
    "scatter",
    "get_dimension_size",
    "set_dimension_size",
    "window_view",
    "padding_pairs",
    "known_comparator",
    "sort_by_keys",
]


# ----------------------------------------------------------------------------------------------------------
# Semantics (numpy in, numpy out)
# ----------------------------------------------------------------------------------------------------------


def broadcast_in_dim(
    operand: np.ndarray, broadcast_dimensions: Sequence[int], result_shape: Sequence[int]
) -> np.ndarray:
    """Spec ``broadcast_in_dim``: ``result[i] = operand[j]`` with ``j[d] = 0`` if ``dim(operand, d) = 1``
    else ``i[broadcast_dimensions[d]]``.

    ``operand`` has rank R, ``broadcast_dimensions`` R distinct result dimensions (in any order: an
    unsorted list also transposes), ``result_shape`` the result's static shape. The result has the
    operand's dtype and is a fresh contiguous array.
    """
    dims = [int(d) for d in broadcast_dimensions]
    order = sorted(range(len(dims)), key=lambda d: dims[d])
    moved = np.transpose(operand, order) if order != list(range(len(dims))) else operand
    expanded = [1] * len(result_shape)
    for d in order:
        expanded[dims[d]] = operand.shape[d]
    return np.array(np.broadcast_to(moved.reshape(expanded), tuple(result_shape)), order="C")


def concatenate(inputs: Sequence[np.ndarray], dimension: int) -> np.ndarray:
    """Spec ``concatenate``: the ``inputs`` (same rank and dtype) joined along ``dimension``."""
    return np.concatenate(list(inputs), axis=int(dimension))


def slice(  # noqa: A001 - the spec's name
    operand: np.ndarray,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int],
) -> np.ndarray:
    """Spec ``slice``: ``result[i] = operand[start_indices + i * strides]`` for ``i`` below
    ``ceil((limit_indices - start_indices) / strides)``; limits are exclusive, strides positive."""
    index = tuple(_pyslice(s, l, st) for s, l, st in zip(start_indices, limit_indices, strides))
    return np.array(operand[index])


def _clamped_starts(start_indices: Sequence[np.ndarray | int], shape, sizes) -> list[int]:
    """``clamp(0, start_indices, shape - sizes)`` as Python ints (index tensors of any integer type)."""
    return [min(max(int(s), 0), int(d) - int(z)) for s, d, z in zip(start_indices, shape, sizes)]


def dynamic_slice(
    operand: np.ndarray, start_indices: Sequence[np.ndarray | int], slice_sizes: Sequence[int]
) -> np.ndarray:
    """Spec ``dynamic_slice``: ``result[i] = operand[adjusted_start_indices + i]`` with
    ``adjusted_start_indices = clamp(0, start_indices, shape(operand) - slice_sizes)``.

    ``start_indices`` are 0-d integer tensors (signed or unsigned), one per dimension of ``operand``.
    """
    starts = _clamped_starts(start_indices, operand.shape, slice_sizes)
    return slice(operand, starts, [s + int(z) for s, z in zip(starts, slice_sizes)], [1] * operand.ndim)


def dynamic_update_slice(
    operand: np.ndarray, update: np.ndarray, start_indices: Sequence[np.ndarray | int]
) -> np.ndarray:
    """Spec ``dynamic_update_slice``: ``operand`` with ``update`` written at
    ``clamp(0, start_indices, shape(operand) - shape(update))``; a new array (``operand`` is not modified)."""
    starts = _clamped_starts(start_indices, operand.shape, update.shape)
    result = operand.copy()
    result[tuple(_pyslice(s, s + z, 1) for s, z in zip(starts, update.shape))] = update
    return result


def reshape(operand: np.ndarray, result_shape: Sequence[int]) -> np.ndarray:
    """Spec ``reshape``: same elements in the same lexicographic (row-major) order, new shape."""
    return np.reshape(operand, tuple(int(d) for d in result_shape))


def reverse(operand: np.ndarray, dimensions: Sequence[int]) -> np.ndarray:
    """Spec ``reverse``: ``result[i] = operand[j]`` with ``j[d] = dim(operand, d) - i[d] - 1`` for ``d``
    in ``dimensions``, ``j[d] = i[d]`` otherwise."""
    if len(dimensions) == 0:
        return operand
    return np.array(np.flip(operand, axis=tuple(int(d) for d in dimensions)), order="C")


def transpose(operand: np.ndarray, permutation: Sequence[int]) -> np.ndarray:
    """Spec ``transpose``: ``result[i] = operand[j]`` with ``i[d] = j[permutation[d]]``
    (result dimension ``d`` is operand dimension ``permutation[d]``)."""
    return np.array(np.transpose(operand, tuple(int(p) for p in permutation)), order="C")


# ----------------------------------------------------------------------------------------------------------
# Adapters (unpack the MLIR op, call the semantics)
# ----------------------------------------------------------------------------------------------------------


def result_shape(op: ir.OpView, index: int = 0) -> list[int]:
    """The static shape of result ``index`` of ``op``."""
    return list(ir.RankedTensorType(op.results[index].type).shape)


def _prepare_broadcast_in_dim(op):
    operation = op.operation
    dims = attributes.i64_array(operation, "broadcast_dimensions")
    shape = tuple(operation.result.type.shape)
    if any(d < 0 for d in shape):  # (a dynamic result: the general form)
        return with_kernel(lambda x: broadcast_in_dim(x, dims, shape))
    if not dims:  # a 0-d operand (the verifier: one dimension per operand dimension), as JAX broadcasts scalars
        size = math.prod(shape)
        # (scalar_broadcast, registry: a planner may hand the 0-d operand to elementwise readers that broadcast it)
        if len(shape) == 1:  # (its one element copied: the same bits)
            return with_kernel(lambda x: x.repeat(size), scalar_broadcast=shape)
        return with_kernel(lambda x: x.repeat(size).reshape(shape), scalar_broadcast=shape or None)
    operand_shape = list(operation.operands[0].type.shape)
    if dims == sorted(dims) and all(d >= 0 for d in operand_shape):
        # dimensions in order (no transpose): the operand, reshaped to the result's rank, is assigned into
        # a fresh array (numpy broadcasts the size-1 dimensions)
        expanded = [1] * len(shape)
        for d, n in zip(dims, operand_shape):
            expanded[int(d)] = n
        expanded_t, empty = tuple(expanded), np.empty

        def fast(x):
            out = empty(shape, x.dtype)
            out[...] = x.reshape(expanded_t)
            return out

        return with_kernel(fast)
    return with_kernel(lambda x: broadcast_in_dim(x, dims, shape))


@register("stablehlo.broadcast_in_dim")
@prepared(_prepare_broadcast_in_dim)
def _broadcast_in_dim(op, operands, interp):
    return [broadcast_in_dim(operands[0], attributes.i64_array(op, "broadcast_dimensions"), result_shape(op))]


@register("stablehlo.concatenate")
def _concatenate(op, operands, interp):
    return [concatenate(operands, attributes.int_value(op, "dimension"))]


@register("stablehlo.slice")
def _slice(op, operands, interp):
    return [
        slice(
            operands[0],
            attributes.i64_array(op, "start_indices"),
            attributes.i64_array(op, "limit_indices"),
            attributes.i64_array(op, "strides"),
        )
    ]


@register("stablehlo.dynamic_slice")
def _dynamic_slice(op, operands, interp):
    return [dynamic_slice(operands[0], operands[1:], attributes.i64_array(op, "slice_sizes"))]


@register("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(op, operands, interp):
    return [dynamic_update_slice(operands[0], operands[1], operands[2:])]


@register("stablehlo.pad")
def _pad(op, operands, interp):
    return [
        pad(
            operands[0],
            operands[1],
            attributes.i64_array(op, "edge_padding_low"),
            attributes.i64_array(op, "edge_padding_high"),
            attributes.i64_array(op, "interior_padding"),
        )
    ]


@register("stablehlo.reshape")
def _reshape(op, operands, interp):
    return [reshape(operands[0], result_shape(op))]


@register("stablehlo.reverse")
def _reverse(op, operands, interp):
    return [reverse(operands[0], attributes.i64_array(op, "dimensions"))]


@register("stablehlo.transpose")
def _transpose(op, operands, interp):
    return [transpose(operands[0], attributes.i64_array(op, "permutation"))]


# ----------------------------------------------------------------------------------------------------------
# sort (spec "sort"): a merge sort whose merges are vectorised binary searches
# ----------------------------------------------------------------------------------------------------------


def _axis(dimension: int, rank: int) -> int:
    """``dimension`` of an array of ``rank`` dimensions, a negative one counted from the end."""
    return int(dimension) + rank if int(dimension) < 0 else int(dimension)


def sort(
    inputs: Sequence[np.ndarray],
    dimension: int,
    is_stable: bool,
    comparator: Callable[..., Sequence[np.ndarray]],
    known: tuple[str, str] | None = None,
) -> list[np.ndarray]:
    """Spec ``sort``: sorts the 1-D slices of ``inputs`` (same shape) along ``dimension`` (negative
    counts from the end) together, ordered by ``comparator(lhs_0, rhs_0, lhs_1, rhs_1, ...) -> i1``
    ("lhs before rhs").

    The comparator runs on whole arrays: a bottom-up merge sort merges all runs of all slices at once,
    each element finding its place in the other run by a binary search (``O(log^2 n)`` comparator calls
    in all). The result is always stable (``is_stable`` is honoured trivially). A comparator that is not
    a strict weak order (e.g. ``LT`` on floats with NaNs) has an implementation-defined result: the
    rows where the merge is inconsistent are sorted again with Python's ``sorted`` calling the
    comparator per pair.

    ``known`` = ``(order, comparison_type)`` when the comparator is one ``compare`` of ``inputs[0]``'s
    pair (:func:`known_comparator`; order ``"ascending"``/``"descending"``): then one stable
    ``numpy.argsort`` of a key that orders exactly as the comparison does replaces the merge sort.
    """
    dim = _axis(dimension, inputs[0].ndim)
    moved = [np.moveaxis(x, dim, -1) for x in inputs]
    shape = moved[0].shape
    n = shape[-1] if shape else 1
    if n <= 1 or moved[0].size == 0:  # (nothing to order; an empty slice makes (-1, n) ambiguous)
        return [np.array(x, order="C") for x in inputs]
    flat = [np.reshape(m, (-1, n)) for m in moved]
    rows = flat[0].shape[0]

    if known is not None:
        key = _sort_key(flat[0], known[1])
        if key is not None:
            if known[0] == "ascending":
                perm = np.argsort(key, axis=1, kind="stable")
            else:  # stable descending: ascending on the reversed rows, read backwards
                perm = n - 1 - np.argsort(key[:, ::-1], axis=1, kind="stable")[:, ::-1]
            out = [np.take_along_axis(f, perm, axis=1).reshape(shape) for f in flat]
            return [np.array(np.moveaxis(o, -1, dim), order="C") for o in out]

    def before(first: np.ndarray, second: np.ndarray) -> np.ndarray:
        args = []
        for f in flat:
            args.append(np.take_along_axis(f, first, axis=1))
            args.append(np.take_along_axis(f, second, axis=1))
        out = np.asarray(comparator(*args)[0])
        return np.broadcast_to(out.astype(np.bool_, copy=False), first.shape)

    perm = np.broadcast_to(np.arange(n), (rows, n)).copy()
    pos = np.arange(n)
    width = 1
    while width < n:
        run_start = (pos // (2 * width)) * (2 * width)
        offset = pos - run_start
        in_a = offset < width
        a_len = np.minimum(width, n - run_start)
        b_len = np.clip(n - run_start - width, 0, width)
        other_start = np.where(in_a, run_start + width, run_start)
        lo = np.zeros((rows, n), np.int64)
        hi = np.broadcast_to(np.where(in_a, b_len, a_len), (rows, n)).astype(np.int64)
        in_a_rows = np.broadcast_to(in_a, (rows, n))
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            probe = np.take_along_axis(perm, np.minimum(other_start + mid, n - 1), axis=1)
            # A's element a asks "B[mid] before a?"; B's element b asks "not (b before A[mid])?"
            r = before(np.where(in_a_rows, probe, perm), np.where(in_a_rows, perm, probe))
            go_right = active & np.where(in_a_rows, r, ~r)
            lo = np.where(go_right, mid + 1, lo)
            hi = np.where(active & ~go_right, mid, hi)
        new_pos = run_start + np.where(in_a_rows, offset + lo, offset - width + lo)
        merged = np.empty_like(perm)
        np.put_along_axis(merged, new_pos, perm, axis=1)
        bad = np.sort(new_pos, axis=1) != pos
        if bad.any():  # inconsistent comparator: fall back per row
            for row in np.nonzero(bad.any(axis=1))[0]:
                merged[row] = _sort_row(flat, row, n, comparator)
            perm = merged
            break
        perm = merged
        width *= 2
    out = [np.take_along_axis(f, perm, axis=1).reshape(shape) for f in flat]
    return [np.array(np.moveaxis(o, -1, dim), order="C") for o in out]


def _totalorder(rows) -> dict[np.dtype, np.dtype]:
    """Float types of ``rows`` whose sign is the top bit of their storage and whose total order is IEEE's -> the
    signed integer type of their bits."""
    return {e.dtype: np.dtype(f"int{e.bits}") for e in rows if e.storage_ordered}


#: :func:`_totalorder` of numpy's own types (f16, f32, f64); ``_TOTALORDER_FLOATS`` (a module attribute too), that
#: of every type, is made on first use (it imports ml_dtypes): for an ml_dtypes dtype only.
_TOTALORDER_NATIVE = _totalorder(hdt.NATIVE_ELEMENT_TYPES.values())
_TOTALORDER_ALL: list = []


def _totalorder_floats() -> dict[np.dtype, np.dtype]:
    if not _TOTALORDER_ALL:
        _TOTALORDER_ALL.append(_totalorder(hdt.ELEMENT_TYPES.values()))
    return _TOTALORDER_ALL[0]


def __getattr__(name: str):
    if name == "_TOTALORDER_FLOATS":
        return _totalorder_floats()
    raise AttributeError(f"module 'hlokit.interpreter.data_movement' has no attribute '{name}'")


def _sort_key(values: np.ndarray, comparison_type: str) -> np.ndarray | None:
    """A numpy-sortable key ordering ``values`` exactly as ``compare LT`` of ``comparison_type`` does,
    or None when there is none (FLOAT with NaNs: not a strict weak order; complex; FNUZ floats)."""
    dt = values.dtype
    if dt == np.bool_ or dt.kind in "iu" or (dt.kind == "V" and "int" in dt.name):
        signed = dt.kind == "i" or dt.name in ("int2", "int4")
        unsigned = dt.kind == "u" or dt.name in ("uint2", "uint4")
        if comparison_type == "UNSIGNED" and signed or comparison_type == "SIGNED" and unsigned:
            return None
        return values.astype(np.int64) if dt.kind == "V" else values
    table = _TOTALORDER_NATIVE if dt.isbuiltin != 2 else _totalorder_floats()
    if dt not in table:
        return None
    if comparison_type == "TOTALORDER":
        bits = values.view(table[dt]).astype(np.int64)
        width = table[dt].itemsize * 8
        # negative floats order backwards by magnitude: flip their magnitude bits
        return np.where(bits < 0, bits ^ ((1 << (width - 1)) - 1), bits)
    if comparison_type == "FLOAT":
        wide = values.astype(np.float64)
        return None if np.isnan(wide).any() else wide
    return None


def known_comparator(region: ir.Region) -> tuple[str, str] | None:
    """``(order, comparison_type)`` when ``region`` is ``%p = compare LT|GT, %arg0, %arg1 [, type];
    return %p`` (either operand order), else None. The comparison type defaults as the spec says:
    FLOAT for floats, SIGNED/UNSIGNED for integers (UNSIGNED for i1)."""
    block = region.blocks[0]
    ops = list(block.operations)
    if len(ops) != 2 or ops[0].operation.name != "stablehlo.compare":
        return None
    cmp, ret = ops
    if len(ret.operands) != 1 or ret.operands[0] != cmp.results[0] or len(block.arguments) < 2:
        return None
    a0, a1 = block.arguments[0], block.arguments[1]
    lhs, rhs = cmp.operands[0], cmp.operands[1]
    direction = attributes.enum_value(cmp, "comparison_direction")
    if direction not in ("LT", "GT"):
        return None
    if lhs == a0 and rhs == a1:
        ascending = direction == "LT"
    elif lhs == a1 and rhs == a0:
        ascending = direction == "GT"
    else:
        return None

    dt = dtype_of(a0.type)
    default = "FLOAT" if dt.kind in "fc" or (dt.kind == "V" and "float" in dt.name) else (
        "UNSIGNED" if dt.kind in "ub" or dt.name.startswith("uint") else "SIGNED"
    )
    ctype = attributes.enum_value(cmp, "compare_type", default)
    return ("ascending" if ascending else "descending", ctype)


def _sort_row(flat: Sequence[np.ndarray], row: int, n: int, comparator) -> np.ndarray:
    """One row sorted with Python's (stable) ``sorted``, one comparator call per comparison."""
    def cmp(i: int, j: int) -> int:
        args = []
        for f in flat:
            args.append(f[row, i].reshape(()) if isinstance(f[row, i], np.ndarray) else np.asarray(f[row, i]))
            args.append(f[row, j].reshape(()) if isinstance(f[row, j], np.ndarray) else np.asarray(f[row, j]))
        if bool(np.asarray(comparator(*args)[0])):
            return -1
        args = [args[k + 1] if k % 2 == 0 else args[k - 1] for k in range(len(args))]
        return 1 if bool(np.asarray(comparator(*args)[0])) else 0

    return np.array(sorted(range(n), key=functools.cmp_to_key(cmp)), dtype=np.int64)


def sort_by_keys(
    inputs: Sequence[np.ndarray], dimension: int, keys: Sequence[tuple[np.ndarray, str, bool]]
) -> list[np.ndarray] | None:
    """Spec ``sort`` for a comparator that is the lexicographic order of elementwise keys
    (:func:`hlokit.interpreter.regions.comparator_keys`): ``keys`` are ``(key array of the inputs'
    shape, comparison type, descending)``, the first the most significant. One stable ``numpy.lexsort``
    of exact order keys (:func:`_sort_key`) gives the stable sort the comparator defines; None when a
    key has no exact order key (FLOAT with NaNs, complex, FNUZ floats)."""
    dim = _axis(dimension, inputs[0].ndim)
    order = []
    for values, ctype, descending in keys:
        k = _sort_key(np.moveaxis(np.broadcast_to(values, inputs[0].shape), dim, -1), ctype)
        if k is None:
            return None
        if descending:
            k = ~k if k.dtype.kind in "iu" else (np.logical_not(k) if k.dtype == np.bool_ else -k)
        order.append(k)
    if inputs[0].shape[dim] <= 1 or inputs[0].size == 0:
        return [np.array(x, order="C") for x in inputs]
    perm = np.lexsort(order[::-1], axis=-1)
    return [np.array(np.moveaxis(np.take_along_axis(np.moveaxis(x, dim, -1), perm, axis=-1), -1, dim), order="C")
            for x in inputs]


def _prepare_sort(op):
    dimension = attributes.int_value(op, "dimension", -1)
    is_stable = attributes.bool_value(op, "is_stable", False)
    region = op.regions[0]
    known = known_comparator(region)
    keys = comparator_keys(region) if known is None else None
    elementwise = is_elementwise_region(region)

    def run(op, operands, interp):
        if keys is not None:
            pairs = [x for x in operands for _ in (0, 1)]  # (lhs, rhs) of each operand: the same arrays
            values = interp.eval_region_values(region, pairs, [k.value for k in keys])
            out = sort_by_keys(operands, dimension, [(v, k.comparison_type, k.descending) for v, k in zip(values, keys)])
            if out is not None:
                return out
        return sort(operands, dimension, is_stable, region_callable(interp, region, elementwise), known)

    return OpImpl(run)


@register("stablehlo.sort")
@prepared(_prepare_sort)
def _sort(op, operands, interp):
    dimension = attributes.int_value(op, "dimension", -1)
    is_stable = attributes.bool_value(op, "is_stable", False)
    region = op.regions[0]
    return sort(operands, dimension, is_stable, region_callable(interp, region), known_comparator(region))


def approx_top_k(
    inputs: Sequence[np.ndarray],
    init_values: Sequence[np.ndarray],
    reduction_dim: int,
    k: int,
    comparator: Callable[..., Sequence[np.ndarray]],
    known: tuple[str, str] | None = None,
) -> list[np.ndarray]:
    """XLA's ``ApproxTopK`` (``jax.lax.approx_max_k`` / ``approx_min_k``) as XLA computes it on CPU and GPU,
    exactly (``ApproxTopKFallback`` in XLA's ``xla/hlo/builder/lib/approx_topk.cc``, which
    ``AggregateToTopKBuilder`` builds): the first ``k`` elements of ``inputs`` (same shape) along
    ``reduction_dim``, ordered by ``comparator(lhs_0, rhs_0, lhs_1, rhs_1, ...) -> i1`` ("lhs before rhs").

    * ``k == 1``: a reduce with ``init_values`` (0-d, one per input) whose body keeps the accumulator when
      ``comparator(accumulator, element)`` holds and takes the element otherwise, over the elements in
      order: of equal elements the last one wins (XLA CPU's result).
    * ``k > 1``: the stable :func:`sort` by ``comparator``, sliced to ``k``.

    ``known``: :func:`known_comparator` of the comparator (its order and comparison type), for the one-pass
    forms of both. Returns one array per input, of the inputs' shape with ``k`` along ``reduction_dim``.
    """
    dim = _axis(reduction_dim, inputs[0].ndim)
    n = inputs[0].shape[dim]
    if k != 1:  # (sort copies inputs of fewer than two elements along dim as they are)
        cut = tuple(builtins.slice(0, k) if d == dim else builtins.slice(None) for d in range(inputs[0].ndim))
        return [np.array(x[cut], order="C") for x in sort(inputs, dim, True, comparator, known)]
    shape = tuple(1 if d == dim else s for d, s in enumerate(inputs[0].shape))
    best = [np.broadcast_to(np.asarray(v, dtype=x.dtype), shape) for v, x in zip(init_values, inputs)]
    if known is not None and n:
        keys = _sort_key(np.concatenate([best[0], inputs[0]], axis=dim), known[1])
        if keys is not None:  # a strict weak order: the last of the best elements, unless the init is better
            keys = np.moveaxis(keys, dim, -1)
            if known[0] == "descending":
                keys = -keys if keys.dtype.kind == "f" else ~keys
            top = keys.min(axis=-1, keepdims=True)  # (ascending order now: the first is the smallest)
            last = keys.shape[-1] - 1 - np.argmax((keys == top)[..., ::-1], axis=-1)
            index = np.expand_dims(last, dim)
            return [np.array(np.take_along_axis(np.concatenate([b, x], axis=dim), index, axis=dim), order="C")
                    for b, x in zip(best, inputs)]
    for i in range(n):
        here = [np.take(x, [i], axis=dim) for x in inputs]
        args = [a for pair in zip(best, here) for a in pair]
        keep = np.broadcast_to(np.asarray(comparator(*args)[0], dtype=np.bool_), shape)
        best = [np.where(keep, b, h) for b, h in zip(best, here)]
    return [np.array(b, order="C") for b in best]


@register_custom_call("ApproxTopK")
def _approx_top_k(op, operands, interp):
    """``custom_call @ApproxTopK`` as JAX emits it: operands ``(inputs..., init_values...)``, the comparator in
    ``called_computations``, ``reduction_dim`` / ``aggregate_to_topk`` / ``is_fallback`` in
    ``mhlo.backend_config``; the size along ``reduction_dim`` of the results is the number of elements kept.
    Without ``is_fallback`` and ``aggregate_to_topk`` a result as long as the input is the input itself (XLA's
    TPU form on inputs below its tiling); every other form is :func:`approx_top_k`."""
    num = len(op.operation.results)
    config = attributes.get(op, "mhlo.backend_config", None)
    callees = attributes.get(op, "called_computations", None)
    if num == 0 or len(operands) != 2 * num or not isinstance(config, ir.DictAttr) or \
            not isinstance(callees, ir.ArrayAttr) or len(callees) != 1:
        raise InterpreterError("'ApproxTopK' takes N inputs and N init values, returns N results, and has one "
                               "comparator in called_computations and an mhlo.backend_config dictionary", op.location)

    def entry(name, kind, default):
        return kind(config[name]).value if name in config else default

    dim = entry("reduction_dim", ir.IntegerAttr, -1)
    aggregate = entry("aggregate_to_topk", ir.BoolAttr, True)
    fallback = entry("is_fallback", ir.BoolAttr, False)
    inputs, init_values = list(operands[:num]), list(operands[num:])
    shape = inputs[0].shape
    dim = _axis(dim, len(shape))
    if not 0 <= dim < len(shape) or any(x.shape != shape for x in inputs) or any(v.ndim for v in init_values):
        raise InterpreterError(f"'ApproxTopK': reduction_dim {dim} outside the inputs' rank {len(shape)}, inputs of "
                               "different shapes, or an init value that is not 0-d", op.location)
    k = list(ir.RankedTensorType(op.operation.results[0].type).shape)[dim]
    if not aggregate and not fallback and k == shape[dim]:
        return [np.array(x, order="C") for x in inputs]
    func = interp.function(ir.FlatSymbolRefAttr(callees[0]).value)
    region = func.operation.regions[0]
    return approx_top_k(inputs, init_values, dim, k, region_callable(interp, region), known_comparator(region))


# ----------------------------------------------------------------------------------------------------------
# gather / scatter (spec "gather", "scatter"): index arrays built once for the whole result / update
# ----------------------------------------------------------------------------------------------------------


def gather(
    operand: np.ndarray,
    start_indices: np.ndarray,
    offset_dims: Sequence[int],
    collapsed_slice_dims: Sequence[int],
    operand_batching_dims: Sequence[int],
    start_indices_batching_dims: Sequence[int],
    start_index_map: Sequence[int],
    index_vector_dim: int,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> np.ndarray:
    """Spec ``gather``: ``result[result_index] = operand[full_start_index + full_batching_index +
    full_offset_index]`` (start indices clamped to ``[0, dim - slice_size]``).

    Built as one numpy advanced index: per operand dimension an int64 index array broadcast to the result
    shape. ``indices_are_sorted`` does not change the result.
    """
    offset_dims = [int(d) for d in offset_dims]
    vec = _index_vectors(start_indices, int(index_vector_dim))
    batch_shape = vec.shape[:-1]
    rank = len(batch_shape) + len(offset_dims)
    batch_axes = [d for d in range(rank) if d not in offset_dims]
    window_dims = [d for d in range(operand.ndim) if d not in collapsed_slice_dims and d not in operand_batching_dims]
    index = []
    for d in range(operand.ndim):
        idx = np.zeros([1] * rank, np.int64)
        if d in start_index_map:
            k = list(start_index_map).index(d)
            start = np.clip(vec[..., k], 0, operand.shape[d] - int(slice_sizes[d]))
            idx = idx + _place(start, batch_axes, rank)
        if d in operand_batching_dims:
            d_start = int(start_indices_batching_dims[list(operand_batching_dims).index(d)])
            axis = d_start - (0 if d_start < index_vector_dim else 1)
            coord = np.arange(batch_shape[axis], dtype=np.int64)
            idx = idx + _place(coord, [batch_axes[axis]], rank)
        if d in window_dims:
            r = offset_dims[window_dims.index(d)]
            idx = idx + _place(np.arange(int(slice_sizes[d]), dtype=np.int64), [r], rank)
        index.append(idx)
    result_shape = [0] * rank
    for a, s in zip(batch_axes, batch_shape):
        result_shape[a] = s
    for r, d in zip(offset_dims, window_dims):
        result_shape[r] = int(slice_sizes[d])
    if operand.ndim == 0:
        return np.array(np.broadcast_to(operand, result_shape), order="C")
    if 0 in result_shape:
        return np.zeros(result_shape, operand.dtype)
    return np.array(np.broadcast_to(operand[tuple(index)], result_shape), order="C")


def _gather_with(op, operand, start_indices, slice_sizes):
    """Unpack a (dynamic_)gather op's dimension numbers and run :func:`gather`."""
    dn = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    return gather(
        operand,
        start_indices,
        list(dn.offset_dims),
        list(dn.collapsed_slice_dims),
        list(dn.operand_batching_dims),
        list(dn.start_indices_batching_dims),
        list(dn.start_index_map),
        dn.index_vector_dim,
        slice_sizes,
        attributes.bool_value(op, "indices_are_sorted", False),
    )


@register("stablehlo.gather")
def _gather(op, operands, interp):
    return [_gather_with(op, operands[0], operands[1], attributes.i64_array(op, "slice_sizes"))]


@register("stablehlo.scatter")
def _scatter(op, operands, interp):
    n = (len(operands) - 1) // 2
    dn = stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    region = op.regions[0]
    known = "replace" if returns_update(region) else known_reduction(region)
    return scatter(
        operands[:n],
        operands[n],
        operands[n + 1 :],
        list(dn.update_window_dims),
        list(dn.inserted_window_dims),
        list(dn.input_batching_dims),
        list(dn.scatter_indices_batching_dims),
        list(dn.scattered_dims_to_operand_dims),
        dn.index_vector_dim,
        region_callable(interp, region),
        [dtype_of(a.type) for a in region.blocks[0].arguments][n:],
        known,
    )


# ----------------------------------------------------------------------------------------------------------
# dynamic variants: the static semantics with shapes/paddings/sizes read from operand tensors
# ----------------------------------------------------------------------------------------------------------


def _ints(value: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(value).reshape(-1)]


def _checked_shape(op: ir.OpView, shape: Sequence[int], what: str) -> list[int]:
    """``shape`` (read from an operand at run time) when it is valid for ``op``'s result type: non-negative
    and equal to every static dimension; an :class:`InterpreterError` naming both otherwise (the spec
    leaves a mismatch undefined; the interpreter reports it)."""
    shape = [int(d) for d in shape]
    rt = ir.RankedTensorType(op.results[0].type)
    static = [None if rt.is_dynamic_dim(i) else rt.get_dim_size(i) for i in range(rt.rank)]
    if len(shape) != rt.rank or any(d < 0 for d in shape) or any(
        s is not None and s != d for s, d in zip(static, shape)
    ):
        raise InterpreterError(
            f"'{op.operation.name}' {what} {shape} does not match the result type {rt}", op.location
        )
    return shape


@register("stablehlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(op, operands, interp):
    """Spec ``dynamic_broadcast_in_dim``: ``broadcast_in_dim`` to the shape ``output_dimensions``
    (the known_(non)expanding_dimensions hints do not change the result)."""
    shape = _checked_shape(op, _ints(operands[1]), "output_dimensions")
    dims = attributes.i64_array(op, "broadcast_dimensions")
    for d, size in zip(dims, operands[0].shape):
        if size != 1 and size != shape[d]:
            raise InterpreterError(
                f"'{op.operation.name}' cannot broadcast operand dimension of size {size} to {shape[d]}",
                op.location,
            )
    return [broadcast_in_dim(operands[0], dims, shape)]


@register("stablehlo.dynamic_iota")
def _dynamic_iota(op, operands, interp):
    """Spec ``dynamic_iota``: ``iota`` of the shape ``output_shape`` along ``iota_dimension``."""
    shape = _checked_shape(op, _ints(operands[0]), "output_shape")
    rt = ir.RankedTensorType(op.results[0].type)
    return [iota(shape, dtype_of(rt.element_type), attributes.int_value(op, "iota_dimension"))]


@register("stablehlo.dynamic_reshape")
def _dynamic_reshape(op, operands, interp):
    """Spec ``dynamic_reshape``: ``reshape`` to the shape ``output_shape``."""
    shape = _checked_shape(op, _ints(operands[1]), "output_shape")
    if int(np.prod(shape, dtype=np.int64)) != operands[0].size:
        raise InterpreterError(
            f"'{op.operation.name}' cannot reshape {operands[0].size} elements to shape {shape}", op.location
        )
    return [reshape(operands[0], shape)]


@register("stablehlo.dynamic_pad")
def _dynamic_pad(op, operands, interp):
    """Spec ``dynamic_pad``: ``pad`` with edge/interior paddings read from the operands."""
    operand, padding_value, low, high, interior = operands
    lo, hi, inner = _ints(low), _ints(high), _ints(interior)
    if any(i < 0 for i in inner):
        raise InterpreterError(f"'{op.operation.name}' interior padding {inner} is negative", op.location)
    shape = [d + lo_ + max(d - 1, 0) * i + hi_ for d, lo_, i, hi_ in zip(operand.shape, lo, inner, hi)]
    _checked_shape(op, shape, "result shape")
    return [pad(operand, padding_value, lo, hi, inner)]


@register("stablehlo.dynamic_gather")
def _dynamic_gather(op, operands, interp):
    """Spec ``dynamic_gather``: ``gather`` with ``slice_sizes`` read from an operand."""
    return [_gather_with(op, operands[0], operands[1], _ints(operands[2]))]


@register("stablehlo.real_dynamic_slice")
def _real_dynamic_slice(op, operands, interp):
    """``real_dynamic_slice`` (dynamism op): ``slice`` with start/limit/stride tensors; indices outside the
    spec's ``slice`` constraints or a result whose shape contradicts a static dimension of the result type
    are an :class:`InterpreterError`."""
    operand, start, limit, strides = operands
    lo, hi, st = _ints(start), _ints(limit), _ints(strides)
    if not (len(lo) == len(hi) == len(st) == operand.ndim) or any(
        not 0 <= a <= b <= d or c < 1 for a, b, c, d in zip(lo, hi, st, operand.shape)
    ):
        raise InterpreterError(
            f"'{op.operation.name}' start {lo}, limit {hi} and strides {st} are not a slice of shape "
            f"{list(operand.shape)} (0 <= start <= limit <= dimension, strides >= 1)", op.location)
    result = slice(operand, lo, hi, st)
    _checked_shape(op, result.shape, "result shape")
    return [result]


def get_dimension_size(operand: np.ndarray, dimension: int) -> np.ndarray:
    """Spec ``get_dimension_size``: ``dim(operand, dimension)`` as a 0-d si32 tensor."""
    return np.array(operand.shape[int(dimension)], np.int32)


@register("stablehlo.get_dimension_size")
def _get_dimension_size(op, operands, interp):
    return [get_dimension_size(operands[0], attributes.int_value(op, "dimension"))]


def set_dimension_size(operand: np.ndarray, size: int, dimension: int) -> np.ndarray:
    """``set_dimension_size`` (StableHLO's bounded-dynamism op; XLA operation semantics "SetDimensionSize"):
    the result is ``operand`` whose dimension ``dimension`` has the runtime size ``size``, i.e. its first
    ``size`` elements along that dimension (the static size is the bound). Raises ``InterpreterError``
    when ``size`` is negative or larger than the bound."""
    dim = int(dimension)
    bound = operand.shape[dim]
    if not 0 <= size <= bound:
        raise InterpreterError(f"set_dimension_size: size {size} is outside [0, {bound}] (the dimension's bound)")
    index = [builtins.slice(None)] * operand.ndim
    index[dim] = builtins.slice(0, size)
    return operand[tuple(index)]


@register("stablehlo.set_dimension_size")
def _set_dimension_size(op, operands, interp):
    operand, size = operands
    return [set_dimension_size(operand, int(size), attributes.int_value(op, "dimension"))]
