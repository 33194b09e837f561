"""Array helpers that several op families of the interpreter share (families do not import each other): the
spec's ``pad`` and ``scatter`` semantics (``reduce_window`` / ``select_and_scatter`` and ``convolution`` pad, and
``select_and_scatter`` scatters), windows as strided views, padding pairs, index vectors, and the dtype ``dot_general``
and ``convolution`` compute in.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections ``pad``, ``scatter``, ``reduce_window``,
``dot_general``; the accumulation type follows XLA's CPU backend (https://openxla.org/xla/operation_semantics).
"""

from __future__ import annotations

import builtins
from typing import Callable, Sequence

import numpy as np

from hlokit.interpreter.regions import REDUCTION_UFUNCS
from hlokit.interpreter.values import NATIVE_DTYPES

__all__ = ["dot_compute_dtype", "index_vectors", "pad", "padding_pairs", "place", "pyslice", "scatter", "window_view"]


def pyslice(start, limit, stride) -> builtins.slice:
    """Python's ``slice`` (this module's ``slice`` is the spec op)."""
    return builtins.slice(int(start), int(limit), int(stride))


def pad(
    operand: np.ndarray,
    padding_value: np.ndarray,
    edge_padding_low: Sequence[int],
    edge_padding_high: Sequence[int],
    interior_padding: Sequence[int],
) -> np.ndarray:
    """Spec ``pad``: ``result[edge_padding_low + j * (interior_padding + 1)] = operand[j]``, every other
    element ``padding_value`` (a 0-d tensor of the operand's dtype).

    Interior padding (>= 0) is applied first; negative edge padding then removes elements of the
    interior-padded operand. Result shape: ``shape + low + max(shape - 1, 0) * interior + high``.
    """
    low = [int(x) for x in edge_padding_low]
    high = [int(x) for x in edge_padding_high]
    interior = [int(x) for x in interior_padding]
    inner = [d + max(d - 1, 0) * i for d, i in zip(operand.shape, interior)]
    buf_shape = [max(lo, 0) + n + max(hi, 0) for lo, n, hi in zip(low, inner, high)]
    buf = np.full(buf_shape, np.asarray(padding_value).reshape(()), dtype=operand.dtype)
    place = tuple(
        pyslice(max(lo, 0), max(lo, 0) + n, i + 1) for lo, n, i in zip(low, inner, interior)
    )
    buf[place] = operand
    crop = tuple(
        pyslice(max(-lo, 0), b - max(-hi, 0), 1) for lo, hi, b in zip(low, high, buf_shape)
    )
    return np.array(buf[crop], order="C")


def window_view(
    padded: np.ndarray, window_dimensions: Sequence[int], window_strides: Sequence[int], window_dilations: Sequence[int]
) -> np.ndarray:
    """Every window of ``padded`` as one read-only strided view of shape ``result_shape +
    window_dimensions``: ``view[i..., w...] = padded[i * window_strides + w * window_dilations]`` (the
    windows the spec's ``reduce_window`` and ``convolution`` slice out of their padded operand; a window
    count of 0 in any dimension gives an empty array)."""
    span = [(int(w) - 1) * int(d) + 1 for w, d in zip(window_dimensions, window_dilations)]
    out = [max((p - s) // int(st) + 1, 0) if p >= s else 0 for p, s, st in zip(padded.shape, span, window_strides)]
    if 0 in out or 0 in [int(w) for w in window_dimensions]:
        return np.zeros(out + [int(w) for w in window_dimensions], padded.dtype)
    strides = padded.strides
    return np.lib.stride_tricks.as_strided(
        padded,
        shape=tuple(out) + tuple(int(w) for w in window_dimensions),
        strides=tuple(s * int(st) for s, st in zip(strides, window_strides))
        + tuple(s * int(d) for s, d in zip(strides, window_dilations)),
        writeable=False,
    )


def padding_pairs(flat: Sequence[int] | None) -> list[list[int]] | None:
    """A flat ``[low0, high0, low1, high1, ...]`` padding (a ``padding`` attribute of shape [R, 2], or a
    ``dynamic_conv`` padding operand) as ``[[low0, high0], ...]``; ``None`` stays ``None``."""
    if flat is None:
        return None
    flat = [int(x) for x in flat]
    return [flat[i : i + 2] for i in range(0, len(flat), 2)]


def index_vectors(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """``indices`` with the index vector as the last axis (a trailing axis of 1 when
    ``index_vector_dim == rank``), as int64 (unsigned values above 2^62 saturate: out of range anyway)."""
    if index_vector_dim >= indices.ndim:
        vec = indices[..., None]
    else:
        vec = np.moveaxis(indices, index_vector_dim, -1)
    if vec.dtype.kind == "u" and vec.dtype.itemsize == 8:
        vec = np.minimum(vec, np.uint64(1 << 62))
    return vec.astype(np.int64)


def place(arr: np.ndarray, axes: Sequence[int], rank: int) -> np.ndarray:
    """Reshape ``arr`` (one axis per entry of ``axes``) to rank ``rank`` with its axes at ``axes``
    (in that order) and size 1 elsewhere, for broadcasting."""
    order = sorted(range(len(axes)), key=lambda i: axes[i])
    arr = np.transpose(arr, order) if order != list(range(len(axes))) else arr
    shape = [1] * rank
    for i in order:
        shape[axes[i]] = arr.shape[order.index(i)]
    return arr.reshape(shape)


def scatter(
    inputs: Sequence[np.ndarray],
    scatter_indices: np.ndarray,
    updates: Sequence[np.ndarray],
    update_window_dims: Sequence[int],
    inserted_window_dims: Sequence[int],
    input_batching_dims: Sequence[int],
    scatter_indices_batching_dims: Sequence[int],
    scatter_dims_to_operand_dims: Sequence[int],
    index_vector_dim: int,
    update_computation: Callable[..., Sequence[np.ndarray]],
    computation_dtypes: Sequence[np.dtype] | None = None,
    known: str | None = None,
) -> list[np.ndarray]:
    """Spec ``scatter`` (variadic): ``results = inputs`` with, for every update element whose
    ``result_index = full_start_index + full_batching_index + full_window_index`` is in bounds,
    ``results...[result_index] = update_computation(results...[result_index], updates...[update_index])``.

    Out-of-bounds elements are skipped one by one (the spec's rule; no clamping). The schedule is
    implementation-defined: updates are applied in rounds, each round taking the next update of every
    target index (so the computation runs on whole arrays, once per round; the number of rounds is
    the largest number of updates to one index). ``known``: ``"replace"`` when the computation returns
    its update, or a single add/multiply/maximum/minimum/and/or/xor (:func:`~hlokit.interpreter.regions.known_reduction`): one
    ``numpy`` assignment / ``ufunc.at`` (applied in update order). ``computation_dtypes``: the
    computation's update element types (updates are converted to them).
    """
    n = len(inputs)
    results = [np.array(x, order="C", copy=True) for x in inputs]
    dtypes = [np.dtype(d) for d in computation_dtypes] if computation_dtypes is not None else [x.dtype for x in inputs]
    ups = [u if u.dtype == d else u.astype(d) for u, d in zip(updates, dtypes)]
    if ups[0].size == 0 or results[0].size == 0:
        return results
    uwd = [int(d) for d in update_window_dims]
    vec = index_vectors(scatter_indices, int(index_vector_dim))
    urank = ups[0].ndim
    scatter_axes = [d for d in range(urank) if d not in uwd]
    window_dims = [
        d for d in range(results[0].ndim) if d not in inserted_window_dims and d not in input_batching_dims
    ]
    sdims = list(scatter_dims_to_operand_dims)
    index = []
    for d in range(results[0].ndim):
        idx = np.zeros([1] * urank, np.int64)
        if d in sdims:
            idx = idx + place(vec[..., sdims.index(d)], scatter_axes, urank)
        if d in input_batching_dims:
            d_start = int(scatter_indices_batching_dims[list(input_batching_dims).index(d)])
            axis = d_start - (0 if d_start < index_vector_dim else 1)
            idx = idx + place(np.arange(vec.shape[axis], dtype=np.int64), [scatter_axes[axis]], urank)
        if d in window_dims:
            r = uwd[window_dims.index(d)]
            idx = idx + place(np.arange(ups[0].shape[r], dtype=np.int64), [r], urank)
        index.append(np.broadcast_to(idx, ups[0].shape))
    shape = results[0].shape
    valid = np.ones(ups[0].shape, np.bool_)
    for d, idx in enumerate(index):
        valid &= (idx >= 0) & (idx < shape[d])
    if results[0].ndim == 0:
        linear = np.zeros(int(valid.sum()), np.int64)
    else:
        linear = np.ravel_multi_index(tuple(idx[valid] for idx in index), shape)
    values = [u[valid] for u in ups]
    flats = [r.reshape(-1) for r in results]
    if linear.size == 0:
        return results
    if known == "replace":
        for f, v in zip(flats, values):
            f[linear] = v.astype(f.dtype, copy=False)
        return results
    if known is not None and n == 1 and flats[0].dtype in NATIVE_DTYPES and flats[0].dtype == dtypes[0]:
        ufunc, kinds = REDUCTION_UFUNCS.get(known, (None, ""))
        if ufunc is not None and flats[0].dtype.kind in kinds:
            with np.errstate(all="ignore"):
                ufunc.at(flats[0], linear, values[0])
            return results
    order = np.argsort(linear, kind="stable")
    lin_sorted = linear[order]
    group_start = np.r_[0, np.nonzero(np.diff(lin_sorted))[0] + 1]
    rank_in_group = np.arange(lin_sorted.size) - np.repeat(group_start, np.diff(np.r_[group_start, lin_sorted.size]))
    for r in range(int(rank_in_group.max()) + 1):
        sel = order[rank_in_group == r]
        target = linear[sel]
        current = [f[target] for f in flats]
        new = update_computation(*current, *(v[sel] for v in values))
        for f, v in zip(flats, new):
            f[target] = np.broadcast_to(np.asarray(v), target.shape).astype(f.dtype, copy=False)
    return results


def dot_compute_dtype(lhs: np.dtype, rhs: np.dtype, result: np.dtype) -> np.dtype:
    """The dtype products and sums are computed in.

    * bool, integer, f32, f64 and complex results: the result type (operands are converted to it, so
      integers wrap modulo the result's width); f64 when a float operand is wider than an f32 result;
    * the small float types (f16, bf16, f8, f6, f4): f32, rounded once to the result type (as XLA's
      CPU backend accumulates them); sub-byte integer results: int64, wrapped by the final conversion.
    """
    result = np.dtype(result)
    if result in NATIVE_DTYPES:
        if result.kind == "f" and max(np.dtype(lhs).itemsize, np.dtype(rhs).itemsize) > result.itemsize:
            return np.dtype(np.float64)
        return result
    if result.kind == "f" or result.kind == "V" and "float" in result.name:
        return np.dtype(np.float32)
    return np.dtype(np.int64)
