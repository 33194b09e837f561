"""Blocked QR (compact WY), blocked Cholesky, block one-sided Jacobi SVD (and block two-sided Jacobi eigh
where it is switched on) against jaxlib's LAPACK on XLA CPU, with the bounds of
``test_lapack_decompositions.py`` (``C n eps cond(A)`` for QR factors, ``C n eps ||A||_2`` for singular
values, ``C n eps ||A||_2 / gap`` for vectors) and Higham's Cholesky bound ``C n eps cond(A)`` (Thm 10.3).

Most cases shrink the block sizes (module constants of ``passes/lapack/``) so that small matrices run the
blocked loops with several blocks, a partial last block and several segments; one case per family runs at
the default sizes. ``geqrf`` keeps LAPACK's reflector conventions, so ``Q`` and ``R`` are compared as they
are (the same signs and phases).
"""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
import hlokit.passes.stablehlo_legalize_lapack_custom_calls  # noqa: F401  (registers the pass)
from hlokit import backend
from hlokit.passes import run_pipeline
from hlokit.passes.lapack import cholesky, jacobi, qr

from test_lapack_decompositions import CONDS, _tall_wide_text, check, export

PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"
C = 16.0


def _legalize(text: str) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, PIPELINE)
    return str(m)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 4 (QR, Cholesky) and 2 (Jacobi pairs of 4 columns) from order 5 on, 3 QR / Cholesky loops."""
    monkeypatch.setattr(qr, "QR_UNBLOCKED", 4)
    monkeypatch.setattr(qr, "QR_BLOCK", 4)
    monkeypatch.setattr(qr, "QR_SEGMENTS", 3)
    monkeypatch.setattr(cholesky, "CHOLESKY_UNBLOCKED", 4)
    monkeypatch.setattr(cholesky, "CHOLESKY_BLOCK", 4)
    monkeypatch.setattr(cholesky, "CHOLESKY_SEGMENTS", 3)
    monkeypatch.setattr(jacobi, "SVD_BLOCK_MIN", 4)
    monkeypatch.setattr(jacobi, "EIGH_BLOCK_MIN", 4)
    monkeypatch.setattr(jacobi, "JACOBI_BLOCK", 2)


def _run(name, dtype, batch, n, conds=None, seed=0):
    text = export.lower(name, dtype, batch, n)
    legal = _legalize(text)
    assert "lapack_" not in legal
    original, legalized = backend.compile(text), backend.compile(legal)
    for i, cond in enumerate(conds or CONDS[dtype]):
        args = export.inputs(name, dtype, batch, n, cond=cond, seed=seed + i)
        check(name, dtype, args, legalized(*args), original(*args))
    return legal


SLOW = pytest.mark.slow


@pytest.mark.parametrize("name, dtype", [("qr", "float64"), pytest.param("qr_complete", "complex64", marks=SLOW),
                                         ("svd", "float32"), pytest.param("svd_reduced", "complex128", marks=SLOW),
                                         pytest.param("svdvals", "float64", marks=SLOW), ("eigh", "complex64"),
                                         pytest.param("eigvalsh", "float64", marks=SLOW),
                                         pytest.param("pinv", "float32", marks=SLOW)])
def test_blocked_with_small_blocks_equals_lapack(small_blocks, name, dtype):
    # Order 11: QR blocks 4 + 4 + 3 in three loops; Jacobi on 12 columns = 6 blocks of 2 (one zero column).
    legal = _run(name, dtype, (2, 3), 11)
    if name.startswith("qr"):
        assert legal.count("stablehlo.triangular_solve") >= 6  # three geqrf loops + three orgqr loops


@pytest.mark.parametrize("name, shape", [pytest.param("qr", (2, 13, 6), marks=SLOW), ("qr_complete", (2, 13, 6)),
                                         ("qr", (6, 13)), pytest.param("svd", (2, 13, 6), marks=SLOW),
                                         pytest.param("svd", (6, 13), marks=SLOW)])
def test_blocked_non_square(small_blocks, name, shape):
    fns = {"qr": lambda a: __import__("jax").numpy.linalg.qr(a),
           "qr_complete": lambda a: __import__("jax").numpy.linalg.qr(a, mode="complete"),
           "svd": lambda a: __import__("jax").numpy.linalg.svd(a)}
    dtype = "complex64" if len(shape) == 3 else "float64"
    text = _tall_wide_text(fns[name], dtype, shape)
    legal = _legalize(text)
    rng = np.random.default_rng(2)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype == "complex64" else 0)
    a = a.astype(dtype)
    check(name, dtype, [a], backend.compile(legal)(a), backend.compile(text)(a))


@pytest.mark.parametrize("name, dtype", [pytest.param("qr", "float64", marks=SLOW), ("svd", "complex64"),
                                         pytest.param("eigh", "float64", marks=SLOW)])
def test_blocked_singular_inputs(small_blocks, name, dtype):
    n = 9
    text = export.lower(name, dtype, (2,), n)
    args = export.inputs(name, dtype, (2,), n, cond=10.0, singular=True, seed=3)
    got = backend.compile(_legalize(text))(*args)
    want = backend.compile(text)(*args)
    if name == "qr":
        q, r = (np.asarray(x) for x in got)
        assert np.abs(q @ r - args[0]).max() <= C * n * np.finfo(dtype).eps * np.abs(args[0]).max()
        return
    check(name, dtype, args, got, want)


def test_blocked_svd_nan_input_gives_nan_like_lapack(small_blocks):
    text = export.lower("svd", "float32", (3,), 9)
    (a,) = export.inputs("svd", "float32", (3,), 9)
    a[1, 1, 0] = np.nan
    got = backend.compile(_legalize(text))(a)
    want = backend.compile(text)(a)
    np.testing.assert_array_equal(np.isnan(got[1]).any(-1), np.isnan(np.asarray(want[1])).any(-1))
    assert not np.isnan(np.asarray(got[1])[[0, 2]]).any()


def test_qr_zero_reflectors(small_blocks):
    # Columns already upper triangular give tau = 0 (H = I): the compact WY form must skip them.
    text = export.lower("qr", "float64", (), 11)
    a = np.triu(np.random.default_rng(0).standard_normal((11, 11)))
    a[:, 5] = 0.0
    got = backend.compile(_legalize(text))(a)
    want = backend.compile(text)(a)
    for g, w in zip(got, want):
        assert np.abs(np.asarray(g) - np.asarray(w)).max() <= C * 11 * np.finfo(np.float64).eps * 10


@pytest.mark.parametrize("dtype", [pytest.param(d, marks=() if d == "complex64" else SLOW) for d in export.DTYPES])
def test_blocked_cholesky(small_blocks, dtype):
    # Order 11 in blocks of 4: the identity padding to 12, three loops; cho_solve through the same factor.
    n, batch = 11, (2, 3)
    for name in ("cholesky", "cho_solve"):
        text = export.lower(name, dtype, batch, n)
        legal = _legalize(text)
        assert "stablehlo.cholesky" not in legal  # potrf: loop-free blocks (no triangular_solve); trsm: kept
        assert ("stablehlo.triangular_solve" in legal) == (name == "cho_solve")
        original, legalized = backend.compile(text), backend.compile(legal)
        for seed, cond in enumerate(CONDS[dtype]):
            args = export.inputs(name, dtype, batch, n, cond=cond, seed=seed)
            got, want = np.asarray(legalized(*args)[0]), np.asarray(original(*args)[0])
            bound = C * n * np.finfo(dtype).eps * cond
            assert np.abs(got - want).max() <= bound * np.abs(want).max(), (name, dtype, cond)


def test_blocked_cholesky_not_positive_definite(small_blocks):
    # NaN factor where LAPACK's program gives NaN (jnp.linalg.cholesky), finite elsewhere.
    n = 11
    text = export.lower("cholesky", "float64", (3,), n)
    (a,) = export.inputs("cholesky", "float64", (3,), n)
    a[1, 9, 9] = -50.0  # fails in the last block
    got = np.asarray(backend.compile(_legalize(text))(a)[0])
    want = np.asarray(backend.compile(text)(a)[0])
    np.testing.assert_array_equal(np.isnan(got).any((-1, -2)), np.isnan(want).any((-1, -2)))
    assert np.isnan(got[1][np.tril_indices(n)]).all() and not np.isnan(got[[0, 2]]).any()


def test_expand_cholesky_blocked(small_blocks):
    # --stablehlo-expand-cholesky beyond the unblocked order: lower and upper, against XLA's own.
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 10, 10))
    a = (x @ np.swapaxes(x, -1, -2) + 10 * np.eye(10)).astype(np.float32)
    for lower in (True, False):
        text = (f"func.func @main(%a: tensor<2x10x10xf32>) -> tensor<2x10x10xf32> {{\n"
                f"  %0 = stablehlo.cholesky %a, lower = {'true' if lower else 'false'} : tensor<2x10x10xf32>\n"
                f"  return %0 : tensor<2x10x10xf32>\n}}\n")
        m = hlokit.parse(text, context=hlokit.make_context())
        run_pipeline(m, "builtin.module(func.func(stablehlo-expand-cholesky))")
        assert "stablehlo.cholesky" not in str(m)
        got, want = np.asarray(backend.compile(str(m))(a)), np.asarray(backend.compile(text)(a))
        assert np.abs(got - want).max() <= C * 10 * np.finfo(np.float32).eps * 100 * np.abs(want).max()


@pytest.mark.parametrize("name, dtype, n", [("qr", "float32", 80), pytest.param("svd", "float64", 72, marks=SLOW),
                                            pytest.param("eigh", "float32", 72, marks=SLOW), ("cholesky", "float32", 100)])
def test_default_block_sizes(name, dtype, n):
    # The default thresholds (QR 32, Jacobi 64, Cholesky 64): one case per family, unbatched.
    if name == "cholesky":
        text = export.lower(name, dtype, (), n)
        legal = _legalize(text)
        assert "stablehlo.cholesky" not in legal
        args = export.inputs(name, dtype, (), n, cond=100.0)
        got, want = np.asarray(backend.compile(legal)(*args)[0]), np.asarray(backend.compile(text)(*args)[0])
        assert np.abs(got - want).max() <= C * n * np.finfo(dtype).eps * 100 * np.abs(want).max()
        return
    _run(name, dtype, (), n, conds=(100.0,))
