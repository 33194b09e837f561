"""The loop-free blocked Cholesky (``_cholesky_static``), the left-looking panel form (``_cholesky_left``)
and the loop-free blocked triangular solve (``_static_lower`` with ``invert_lower``) of
``passes/lapack/cholesky.py`` and ``passes/lapack/triangular_solve.py``, against XLA's native
``stablehlo.cholesky`` / ``stablehlo.triangular_solve`` and jaxlib's LAPACK, with the bounds of
``test_expand_linalg.py`` (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Thm 10.3 for
Cholesky: backward error ``C n eps``, forward difference ``C n eps kappa``; Thm 8.5 for triangular systems).

Block sizes are shrunk (module constants) so that small matrices run several blocks, a partial last block,
the recursion of the diagonal block (``_chol_inv``) and several panel steps; one case per path runs at the
default sizes.
"""

from __future__ import annotations

import numpy as np
import pytest

from hlokit import backend
from hlokit.passes.lapack import cholesky, triangular_solve

from test_expand_linalg import (
    CHOLESKY, COMBOS, _run_cholesky, _run_solve, check_reads_only_its_triangle, cholesky_program, expand,
)
from test_lapack_blocked import _legalize
from test_lapack_legalize import _LETTER, _POTRF, _cond, _rel, export


@pytest.fixture(params=["static", "static-recursive", "left"])
def path(request, monkeypatch):
    """Send every order from 5 on to one of the new paths with blocks of 2-4 columns."""
    monkeypatch.setattr(cholesky, "CHOLESKY_UNBLOCKED", 4)
    monkeypatch.setattr(cholesky, "CHOLESKY_LEAF", 2)
    monkeypatch.setattr(cholesky, "CHOLESKY_PANEL_LEAF", 2)
    if request.param == "static":
        monkeypatch.setattr(cholesky, "CHOLESKY_STATIC_BLOCK", 3)
        monkeypatch.setattr(cholesky, "CHOLESKY_LEAF", 3)
    elif request.param == "static-recursive":  # diagonal blocks of 7 by recursion down to leaves of 2
        monkeypatch.setattr(cholesky, "CHOLESKY_STATIC_BLOCK", 7)
    else:
        monkeypatch.setattr(cholesky, "CHOLESKY_STATIC_MAX", 4)
        monkeypatch.setattr(cholesky, "CHOLESKY_PANEL", 4)
        monkeypatch.setattr(cholesky, "CHOLESKY_SMALL_PANEL", 4)
    return request.param


SLOW = pytest.mark.slow


@pytest.mark.parametrize("t", ["f64", "complex<f32>", pytest.param("f32", marks=SLOW),
                               pytest.param("complex<f64>", marks=SLOW)])
def test_expanded_cholesky_new_paths_match_xla(path, t):
    # Lower and upper, batched, one indefinite and one NaN batch element (NaN-filled as on XLA); f64 down to
    # cond 1e8, as test_expand_linalg. Order 11: blocks 3+3+3+2 / 7+4 / panels 4+4+4 (padded to 12).
    conds = (10.0, 1e3) if "32" in t else (10.0, 1e8)
    _run_cholesky(t, (2, 2), (11,), conds, seed=3)
    assert "stablehlo.while" in expand(cholesky_program(t, [[11, 11]], [True]), CHOLESKY)  # the leaf loops


def test_expanded_cholesky_new_paths_read_only_their_triangle(path):
    check_reads_only_its_triangle(11, seed=6, cond=100.0)


@pytest.mark.parametrize("uplo", ["L", pytest.param("U", marks=SLOW)])
def test_potrf_new_paths_factor_and_info_match_lapack(path, uplo):
    # The legalized potrf on the new paths: factor (the other triangle: the input, as LAPACK leaves it)
    # and info (non-zero exactly where LAPACK's is) against jaxlib's LAPACK; order 11.
    n = 11
    for dtype in ("float32", "complex128") if uplo == "L" else ("float64",):
        c, t = _LETTER[dtype]
        text = _POTRF.format(c=c, t=t, uplo=ord(uplo)).replace("4x4x", f"{n}x{n}x")
        (a,) = export.inputs("cholesky", dtype, (3,), n, cond=100.0)
        a[2] = a[2] - 2.0 * np.eye(n)  # indefinite: info > 0
        want_f, want_info = backend.compile(text)(a)
        legal = _legalize(text)
        assert "stablehlo.cholesky" not in legal
        got_f, got_info = backend.compile(legal)(a)
        assert want_info[0] == want_info[1] == 0 and want_info[2] > 0
        np.testing.assert_array_equal(got_info != 0, want_info != 0)
        tri = np.tril if uplo == "L" else np.triu
        tol = 8.0 * n * np.finfo(np.dtype(dtype)).eps * _cond(a[:2])
        assert _rel(tri(got_f[:2]), tri(want_f[:2])) <= tol
        keep = np.triu(np.ones((n, n), bool), 1) if uplo == "L" else np.tril(np.ones((n, n), bool), -1)
        np.testing.assert_array_equal(got_f[:, keep], a[:, keep])


@pytest.mark.parametrize("n, t", [(40, "f64"), pytest.param(40, "f32", marks=SLOW), pytest.param(300, "f32", marks=SLOW)])
def test_default_sizes(n, t):
    # n = 40: the static path (blocks of 16, the last of 8); n = 300: the left-looking panels of 64.
    conds = (10.0, 1e3) if t == "f32" else (10.0, 1e8)
    _run_cholesky(t, (), (n,), conds, seed=4)


@pytest.mark.parametrize("n", [24, 40])
def test_potrf_zero_last_pivot_as_lapack(n):
    # A = L L^T with small integers, a unit diagonal but L[n-1, n-1] = 0: every step is exact and the last
    # pivot is exactly 0. LAPACK leaves that 0 on the diagonal (info = n); so must the blocked form (its
    # leaf scales a pivot row by rsqrt(d): the diagonal entry must come out 0, not 0 * inf = NaN, which
    # would NaN-fill the whole factor). Batch elements 1, 2: positive definite. n = 24: static blocks
    # 16 + 8; n = 40: 16 + 16 + 8.
    rng = np.random.default_rng(11)
    low = np.tril(rng.integers(-2, 3, (n, n)), -1).astype(np.float64) + np.eye(n)
    low[-1, -1] = 0.0
    (spd,) = export.inputs("cholesky", "float64", (1,), n, cond=10.0)
    a = np.stack([low @ low.T, spd[0], spd[0]])
    text = _POTRF.format(c="d", t="f64", uplo=ord("L")).replace("4x4x", f"{n}x{n}x")
    want_f, want_info = backend.compile(text)(a)
    got_f, got_info = backend.compile(_legalize(text))(a)
    np.testing.assert_array_equal(want_info, [n, 0, 0])
    np.testing.assert_array_equal(got_info, want_info)
    np.testing.assert_array_equal(np.tril(want_f[0]), low)
    np.testing.assert_array_equal(np.tril(got_f[0]), low)


@pytest.mark.parametrize("unit", [False, True])
@pytest.mark.parametrize("s", [1, 2, 5, 8, 13])
def test_invert_lower_matches_numpy(s, unit):
    from hlokit.passes.builder import Emitter
    import hlokit

    rng = np.random.default_rng(s)
    t = np.tril(rng.standard_normal((3, 2, s, s)) / np.sqrt(s)) + 2.0 * np.eye(s)
    junk = t + np.triu(np.full((s, s), np.nan), 1)  # the upper triangle is not read
    if unit:
        junk[..., np.arange(s), np.arange(s)] = np.nan  # nor the diagonal
    e = Emitter()
    (a,) = e.args([(list(t.shape), "f64")])
    text = e.text("main", [a], [triangular_solve.invert_lower(e, a, unit)]).replace(
        "func.func private @main", "func.func @main")
    got = np.asarray(backend.compile(hlokit.parse(text, context=hlokit.make_context()))(junk)[0])
    m = np.tril(t, -1) + np.eye(s) if unit else t
    np.testing.assert_allclose(got, np.linalg.inv(m), rtol=0, atol=1e-13 * s)
    assert np.array_equal(got, np.tril(got))


@pytest.mark.parametrize("t, batch, n, k", [("f64", (2,), 70, 3), ("complex<f32>", (), 45, 2)])
def test_static_triangular_solve_every_combination(t, batch, n, k):
    # Several blocks (70 rows: blocks of 32, padded to 96), every attribute combination.
    _run_solve(t, batch, n, k, combos=COMBOS[::2] if t == "f64" else COMBOS[1::2], seed=7)


def test_trsm_beyond_native_max_is_expanded_and_matches_lapack():
    n = triangular_solve.TRSM_NATIVE_MAX + 8
    for name in ("solve_triangular_lower", "solve_triangular_upper_trans_unit"):
        text = export.lower(name, "float64", (2,), n)
        legal = _legalize(text)
        assert "stablehlo.triangular_solve" not in legal and "lapack_" not in legal
        args = export.inputs(name, "float64", (2,), n, cond=100.0)
        (got,), (want,) = backend.compile(legal)(*args), backend.compile(text)(*args)
        assert _rel(got, want) <= 8.0 * n * np.finfo(np.float64).eps * _cond(args[0]), name
    small = _legalize(export.lower("solve_triangular_lower", "float32", (), 8))
    assert "stablehlo.triangular_solve" in small  # XLA's own up to TRSM_NATIVE_MAX
