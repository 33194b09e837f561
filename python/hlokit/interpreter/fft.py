"""``fft`` in the reference interpreter (StableHLO spec https://openxla.org/stablehlo/spec, section "fft").

numpy's FFT in complex128 / float64, rounded once to the result type.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from hlokit import attributes
from hlokit.interpreter.registry import register
from hlokit.interpreter.values import dtype_of

__all__ = ["fft"]


def fft(operand: np.ndarray, fft_type: str, fft_length: Sequence[int], result_dtype: np.dtype) -> np.ndarray:
    """Spec ``fft`` over the last ``L = size(fft_length)`` dimensions (1 <= L <= 3):
    ``FFT`` (complex forward), ``IFFT`` (complex inverse, scaled by 1/N), ``RFFT`` (real forward,
    keeping the ``n/2 + 1`` non-redundant outputs of the last dimension) and ``IRFFT`` (its inverse,
    producing ``fft_length`` real outputs). Computed in complex128/float64, rounded to ``result_dtype``."""
    axes = tuple(range(operand.ndim - len(fft_length), operand.ndim))
    s = [int(n) for n in fft_length]
    if fft_type == "FFT":
        out = np.fft.fftn(operand.astype(np.complex128), s=s, axes=axes)
    elif fft_type == "IFFT":
        out = np.fft.ifftn(operand.astype(np.complex128), s=s, axes=axes)
    elif fft_type == "RFFT":
        out = np.fft.rfftn(operand.astype(np.float64), s=s, axes=axes)
    elif fft_type == "IRFFT":
        out = np.fft.irfftn(operand.astype(np.complex128), s=s, axes=axes)
    else:
        raise ValueError(f"unknown fft_type {fft_type}")
    return np.array(out.astype(result_dtype), order="C")


@register("stablehlo.fft")
def _fft(op, operands, interp):
    return [
        fft(
            operands[0],
            attributes.enum_value(op, "fft_type"),
            attributes.i64_array(op, "fft_length"),
            dtype_of(op.results[0].type),
        )
    ]
