"""Parameter lists of the element-type sweeps whose 64-bit cases run only with ``-m slow``.

The linear-algebra accuracy tests compile one large program per case (seconds of XLA CPU compile each); where a
test sweeps the same algorithm over 32- and 64-bit element types, the default run keeps the 32-bit cases and
the 64-bit ones join the ``slow`` sweep. Algorithms whose 64-bit program differs (other step counts, leaf
sizes, Cholesky-based steps) keep a 64-bit test of their own in the default run; see each test file.
"""

from __future__ import annotations

from typing import Iterable

import pytest

#: Element-type spellings of the 64-bit cases (numpy names and MLIR names).
WIDE = frozenset({"float64", "complex128", "f64", "complex<f64>"})


def _is_wide(value) -> bool:
    values = value if isinstance(value, tuple) else (value,)
    return any(isinstance(v, str) and v in WIDE for v in values)


def wide_slow(values: Iterable) -> list:
    """``values`` (element types, or tuples of parameters one of which is an element type) as pytest
    parameters, those with a 64-bit element type (:data:`WIDE`) marked ``slow``."""
    return [pytest.param(*(v if isinstance(v, tuple) else (v,)), marks=pytest.mark.slow) if _is_wide(v) else v
            for v in values]


#: The two cases a four-type sweep keeps in the default run: one real 32-bit, one complex 64-bit (each field
#: and each precision once).
DEFAULT_OF_FOUR = frozenset({"float32", "complex128", "f32", "complex<f64>"})


def f32_and_c128_by_default(values: Iterable) -> list:
    """A sweep over float32 / float64 / complex64 / complex128 (numpy or MLIR names) as pytest parameters:
    float32 and complex128 in the default run, float64 and complex64 marked ``slow``."""
    return [v if v in DEFAULT_OF_FOUR else pytest.param(v, marks=pytest.mark.slow) for v in values]
