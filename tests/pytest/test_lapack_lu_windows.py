"""Blocked LU's windows (``passes/lapack/lu.py``): rows left in place inside ``SEGMENTS`` trailing windows,
two-level blocks (the column loop on ``LEAF`` columns inside a block of ``WIDE_BLOCK``), against jaxlib's
LAPACK ``?getrf``: the same pivots and ``info``, the factors within the bound of ``test_lapack_lu_blocked.py``.
"""

from __future__ import annotations

import pytest

from hlokit.passes.lapack import lu

from test_lapack_lu_blocked import _check, _getrf, _legalize, _matrix


@pytest.mark.parametrize("dtype, batch, m, n", [
    ("float64", (), 300, 150),     # tall: four blocks of 32 and a tail of 22
    ("float32", (2,), 100, 230),   # wide: three blocks of 32 and a tail of 4, then U's columns past m
])
def test_tall_and_wide_windows_equal_lapack(dtype, batch, m, n):
    _check(dtype, _matrix(dtype, (*batch, m, n), seed=11), batch, m, n)


@pytest.mark.parametrize("segments", [1, 4])
def test_any_number_of_windows_gives_lapacks_pivots(monkeypatch, segments):
    # One window (every block on the whole matrix) and one window per block (four blocks of 32).
    monkeypatch.setattr(lu, "SEGMENTS", segments)
    _check("complex64", _matrix("complex64", (2, 130, 130), seed=12), (2,), 130, 130)


def test_zero_pivots_inside_a_two_level_block_and_in_a_later_window(monkeypatch):
    # Blocks of 64 (two column loops of 32, as f64 takes from n = 768 on): column 40 is in the second column
    # loop of the first block, column 100 in the second block's window; info is the first zero pivot, the
    # other columns go on.
    monkeypatch.setattr(lu, "WIDE_MIN", 100)
    assert lu.getrf_block_size(160, "f64") == 64
    a = _matrix("float64", (2, 160, 160), seed=13)
    a[0, :, 40] = 0.0
    a[1, :, 100] = 0.0
    got = _check("float64", a, (2,), 160, 160)
    assert list(got[2]) == [41, 101]


def test_program_does_not_grow_with_the_matrix(monkeypatch):
    # The same loops (per window a block loop and a column loop, and a sub-block loop for two-level blocks)
    # at n = 256 and n = 512; a matrix no wider than a block is one column loop.
    counts = [_legalize(_getrf("float64", (), n, n)).count("stablehlo.while") for n in (256, 512)]
    assert counts[0] == counts[1] == 2 * lu.SEGMENTS
    monkeypatch.setattr(lu, "WIDE_MIN", 0)
    counts = [_legalize(_getrf("float64", (), n, n)).count("stablehlo.while") for n in (256, 512)]
    assert counts[0] == counts[1] == 3 * lu.SEGMENTS
    assert _legalize(_getrf("float32", (), 30, 30)).count("stablehlo.while") == 1
