"""``convolution`` and ``dynamic_conv`` in the reference interpreter.

Semantics: StableHLO spec (https://openxla.org/stablehlo/spec), sections "convolution" and
"dynamic_conv". The padded, dilated input is seen as one strided view of all windows
(:func:`~hlokit.interpreter.data_movement.window_view`) and contracted with the kernel by one batched
``matmul`` per feature group and batch group, in :func:`~hlokit.interpreter.linalg.dot_compute_dtype`.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from jaxlib.mlir.dialects import stablehlo

from hlokit import attributes
from hlokit.interpreter.arrays import dot_compute_dtype, pad, padding_pairs, window_view
from hlokit.interpreter.registry import register
from hlokit.interpreter.values import dtype_of

__all__ = ["convolution"]


def convolution(
    lhs: np.ndarray,
    rhs: np.ndarray,
    window_strides: Sequence[int] | None,
    padding: Sequence[Sequence[int]] | None,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    window_reversal: Sequence[bool] | None,
    input_batch_dimension: int,
    input_feature_dimension: int,
    input_spatial_dimensions: Sequence[int],
    kernel_input_feature_dimension: int,
    kernel_output_feature_dimension: int,
    kernel_spatial_dimensions: Sequence[int],
    output_batch_dimension: int,
    output_feature_dimension: int,
    output_spatial_dimensions: Sequence[int],
    feature_group_count: int,
    batch_group_count: int,
    result_dtype: np.dtype,
) -> np.ndarray:
    """Spec ``convolution``: dot products of windows of ``lhs`` (padded with ``padding``, dilated by
    ``lhs_dilation``, stepped by ``window_strides``) with ``rhs`` (dilated by ``rhs_dilation``, spatial
    dims reversed where ``window_reversal``), per feature group and batch group.

    Shapes follow the dimension numbers; the result has ``result_dtype`` (computed as dot_general is,
    see :func:`~hlokit.interpreter.linalg.dot_compute_dtype`). Strides/dilations default to 1, padding to 0 (``None``).
    """
    ns = len(input_spatial_dimensions)
    ones = [1] * ns
    window_strides = list(window_strides) if window_strides is not None else ones
    lhs_dilation = list(lhs_dilation) if lhs_dilation is not None else ones
    rhs_dilation = list(rhs_dilation) if rhs_dilation is not None else ones
    padding = [list(p) for p in padding] if padding is not None else [[0, 0]] * ns
    ct = dot_compute_dtype(lhs.dtype, rhs.dtype, result_dtype)
    x = np.transpose(lhs, [input_batch_dimension, input_feature_dimension, *input_spatial_dimensions]).astype(ct)
    k = np.transpose(
        rhs, [kernel_output_feature_dimension, kernel_input_feature_dimension, *kernel_spatial_dimensions]
    ).astype(ct)
    if window_reversal is not None and any(window_reversal):
        k = np.flip(k, axis=tuple(2 + i for i, r in enumerate(window_reversal) if r))
    zero = np.zeros((), ct)
    low = [0, 0] + [p[0] for p in padding]
    high = [0, 0] + [p[1] for p in padding]
    x = pad(x, zero, low, high, [0, 0] + [d - 1 for d in lhs_dilation])
    k = pad(k, zero, [0] * (ns + 2), [0] * (ns + 2), [0, 0] + [d - 1 for d in rhs_dilation])
    n, c = x.shape[:2]
    o, cg = k.shape[:2]
    ksp = k.shape[2:]
    g, bg = int(feature_group_count), int(batch_group_count)
    win = window_view(x, [n, c, *ksp], [1, 1, *window_strides], [1] * (ns + 2))  # (1, 1, S..., n, c, K...)
    out_sp = win.shape[2 : 2 + ns]
    s = int(np.prod(out_sp, dtype=np.int64))
    kk = int(np.prod(ksp, dtype=np.int64))
    win = win.reshape((s, n, c, kk))
    nb, og = n // bg, o // (g * bg)
    # windows -> (bg, g, nb * s, cg * kk); kernel -> (bg, g, cg * kk, og)
    w = win.reshape(s, bg, nb, g, cg, kk).transpose(1, 3, 2, 0, 4, 5).reshape(bg, g, nb * s, cg * kk)
    kern = k.reshape(bg, g, og, cg, kk).transpose(0, 1, 3, 4, 2).reshape(bg, g, cg * kk, og)
    with np.errstate(all="ignore"):
        res = np.matmul(w, kern)  # (bg, g, nb * s, og)
    res = res.reshape(bg, g, nb, *out_sp, og)
    # output feature index = (b * g + gi) * og + oi, batch = nb
    res = np.moveaxis(res, -1, 2)  # (bg, g, og, nb, S...)
    res = res.reshape(bg * g * og, nb, *out_sp).swapaxes(0, 1)  # (nb, o, S...)
    destination = [output_batch_dimension, output_feature_dimension, *output_spatial_dimensions]
    res = np.moveaxis(res, list(range(ns + 2)), destination)
    return np.array(res.astype(result_dtype), order="C")


def _run(op, operands, padding):
    """Unpack a (dynamic_)convolution op's attributes and run :func:`convolution` with ``padding``."""
    dn = stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    return [
        convolution(
            operands[0],
            operands[1],
            attributes.i64_array(op, "window_strides", None),
            padding,
            attributes.i64_array(op, "lhs_dilation", None),
            attributes.i64_array(op, "rhs_dilation", None),
            attributes.bool_array(op, "window_reversal", None),
            dn.input_batch_dimension,
            dn.input_feature_dimension,
            list(dn.input_spatial_dimensions),
            dn.kernel_input_feature_dimension,
            dn.kernel_output_feature_dimension,
            list(dn.kernel_spatial_dimensions),
            dn.output_batch_dimension,
            dn.output_feature_dimension,
            list(dn.output_spatial_dimensions),
            attributes.int_value(op, "feature_group_count", 1),
            attributes.int_value(op, "batch_group_count", 1),
            dtype_of(op.results[0].type),
        )
    ]


@register("stablehlo.convolution")
def _convolution(op, operands, interp):
    return _run(op, operands, padding_pairs(attributes.i64_array(op, "padding", None)))


@register("stablehlo.dynamic_conv")
def _dynamic_conv(op, operands, interp):
    """Spec ``dynamic_conv``: ``convolution`` with its ``padding`` read from the third operand."""
    return _run(op, operands, padding_pairs([int(v) for v in np.asarray(operands[2]).reshape(-1)]))
