"""Data-movement ops of the reference interpreter: semantics on whole numpy arrays (seed 000).

One pure semantics function per op, named after the spec op and taking the spec's operands and attributes
as plain arguments (numpy arrays, tuples of ints); one adapter per op that unpacks the MLIR op and calls it.
Data movement never computes on element values, so every element type (ml_dtypes included), NaN payloads
and signed zeros pass through bit for bit.

Ops: broadcast_in_dim, concatenate, dynamic_slice, dynamic_update_slice, pad, reshape, reverse, slice,
transpose (spec sections of the same names).
"""

from __future__ import annotations

import builtins
from typing import Sequence

import numpy as np
from jaxlib.mlir import ir

from hlokit.interpreter.registry import i64_array, int_attr, register

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


def _pyslice(start, limit, stride) -> builtins.slice:
    """Python's ``slice`` (this module's ``slice`` is the spec op)."""
    return builtins.slice(int(start), int(limit), int(stride))


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
        _pyslice(max(lo, 0), max(lo, 0) + n, i + 1) for lo, n, i in zip(low, inner, interior)
    )
    buf[place] = operand
    crop = tuple(
        _pyslice(max(-lo, 0), b - max(-hi, 0), 1) for lo, hi, b in zip(low, high, buf_shape)
    )
    return np.array(buf[crop], order="C")


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


@register("stablehlo.broadcast_in_dim")
def _broadcast_in_dim(op, operands, interp):
    return [broadcast_in_dim(operands[0], i64_array(op, "broadcast_dimensions"), result_shape(op))]


@register("stablehlo.concatenate")
def _concatenate(op, operands, interp):
    return [concatenate(operands, int_attr(op, "dimension"))]


@register("stablehlo.slice")
def _slice(op, operands, interp):
    return [
        slice(
            operands[0],
            i64_array(op, "start_indices"),
            i64_array(op, "limit_indices"),
            i64_array(op, "strides"),
        )
    ]


@register("stablehlo.dynamic_slice")
def _dynamic_slice(op, operands, interp):
    return [dynamic_slice(operands[0], operands[1:], i64_array(op, "slice_sizes"))]


@register("stablehlo.dynamic_update_slice")
def _dynamic_update_slice(op, operands, interp):
    return [dynamic_update_slice(operands[0], operands[1], operands[2:])]


@register("stablehlo.pad")
def _pad(op, operands, interp):
    return [
        pad(
            operands[0],
            operands[1],
            i64_array(op, "edge_padding_low"),
            i64_array(op, "edge_padding_high"),
            i64_array(op, "interior_padding"),
        )
    ]


@register("stablehlo.reshape")
def _reshape(op, operands, interp):
    return [reshape(operands[0], result_shape(op))]


@register("stablehlo.reverse")
def _reverse(op, operands, interp):
    return [reverse(operands[0], i64_array(op, "dimensions"))]


@register("stablehlo.transpose")
def _transpose(op, operands, interp):
    return [transpose(operands[0], i64_array(op, "permutation"))]
