"""check dialect helpers: ULP distances are exact for every float width."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from hlokit.interpreter.check_ops import expect_close, ulp_distance


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn])
def test_ulp_distance_counts_single_steps_exactly(dtype):
    x = np.array([1.0, -1.0, 3.0, 1e3 if dtype != ml_dtypes.float8_e4m3fn else 200.0], dtype)
    up = np.nextafter(x.astype(np.float64), np.inf).astype(dtype) if dtype == np.float64 else None
    if up is None:  # step by one bit pattern
        it = {1: np.uint8, 2: np.uint16, 4: np.uint32}[np.dtype(dtype).itemsize]
        up = (x.view(it) + it(1)).view(dtype)
    np.testing.assert_array_equal(ulp_distance(x, up), [1, 1, 1, 1])
    np.testing.assert_array_equal(ulp_distance(x, x), [0, 0, 0, 0])


def test_ulp_distance_across_zero_and_large_f64():
    a = np.array([3584912846.1315913, 0.0, -5e-324])
    b = np.array([3584912846.131592, -0.0, 5e-324])
    np.testing.assert_array_equal(ulp_distance(a, b), [1, 0, 2])


def test_expect_close_bounds():
    a = np.array([1.0, 2.0])
    b = np.nextafter(a, 3.0)
    assert expect_close(a, b, 0, 3) is None
    assert expect_close(a, b, 2, 3) is not None
