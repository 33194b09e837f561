"""Householder QR of a matrix with a lower bandwidth (``build_geqrf`` / ``build_orgqr``'s ``lower_bandwidth``,
``passes/lapack/qr.py``): each block of reflectors works on the ``p + nb`` rows it can touch. The stacked
``[sqrt(c) X; I]`` of the QR-based QDWH step (``passes/lapack/polar.py``) is the case it is built for; a
generic banded matrix checks the bookkeeping of the windows (clamped at the bottom, several segments)."""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
from hlokit import backend
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr

TYPES = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128}


def _qr_program(shape, t: str, band, block_size=None, segments=1):
    e = Emitter()
    (a,) = e.args([(shape, t)])
    qr, tau = build_geqrf(e, a, block_size=block_size, segments=segments, lower_bandwidth=band)
    q = build_orgqr(e, qr, tau, block_size=block_size, segments=segments, lower_bandwidth=band)
    text = e.text("main", [a], [qr, tau, q]).replace("func.func private @main", "func.func @main")
    return text, backend.compile(hlokit.parse(text, context=hlokit.make_context()))


def _rand(rng, shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x


def _check_qr(a, qr, q, dtype, bound=16.0):
    """``Q R = A`` and ``Q^H Q = I`` to ``bound * (rows) * eps``."""
    *batch, m, n = a.shape
    eps = np.finfo(dtype).eps
    r = np.triu(qr[..., :n, :])
    scale = np.abs(a).max()
    assert np.abs(q @ r - a).max() <= bound * m * eps * scale
    gram = np.conj(np.swapaxes(q, -1, -2)) @ q
    assert np.abs(gram - np.eye(n)).max() <= bound * m * eps


@pytest.mark.parametrize("t, m, n, batch", [("f32", 96, 96, ()), ("f64", 130, 100, ()),
                                            ("complex<f32>", 70, 70, (2,)),
                                            pytest.param("complex<f64>", 96, 80, (), marks=pytest.mark.slow)])
def test_stacked_identity_matches_full_height(t, m, n, batch):
    """``[s X; I]`` (lower bandwidth ``m``): the banded QR's ``R``, ``tau`` and ``Q_1 Q_2^H`` equal the
    full-height QR's to rounding, ``Q`` is orthonormal with ``Q R = A``, ``Q_2`` is exactly upper triangular
    (the identity rows below each reflector were never touched), and the program works on ``(m + 32)``-row
    windows."""
    dtype = TYPES[t]
    rng = np.random.default_rng(3)
    shape = (*batch, m + n, n)
    x = _rand(rng, (*batch, m, n), dtype) * 1e3
    a = np.concatenate([x, np.broadcast_to(np.eye(n), (*batch, n, n))], axis=-2).astype(dtype)
    text_full, full = _qr_program(shape, t, None)
    text_band, band = _qr_program(shape, t, m)
    want = [np.asarray(o) for o in full(a)]
    got = [np.asarray(o) for o in band(a)]
    eps = np.finfo(dtype).eps
    window = f"tensor<{'x'.join(str(d) for d in (*batch, m + 32, n))}x{t}>"
    assert window in text_band and window not in text_full
    _check_qr(a, got[0], got[2], dtype)
    # same reflectors to rounding (cond([s X; I]) ~ 1e3 here)
    rdiag = np.abs(np.diagonal(want[0][..., :n, :], axis1=-2, axis2=-1)).min()
    assert np.abs(np.triu(got[0][..., :n, :]) - np.triu(want[0][..., :n, :])).max() <= 64 * m * eps * np.abs(a).max()
    assert np.abs(got[1] - want[1]).max() <= 64 * m * eps * np.abs(a).max() / rdiag
    q2 = got[2][..., m:, :]
    assert not np.tril(q2, -1).any()
    prod = lambda q: q[..., :m, :] @ np.conj(np.swapaxes(q[..., m:, :], -1, -2))  # noqa: E731
    assert np.abs(prod(got[2]) - prod(want[2])).max() <= 64 * m * eps * 1e3


@pytest.mark.parametrize("band, block_size, segments", [(5, 16, 1), (5, 16, 3), (40, 16, 2), (0, 8, 1)])
def test_banded_matrix(band, block_size, segments):
    """A 100 x 60 f64 matrix with lower bandwidth ``band`` (0: upper triangular): ``Q R = A``, ``Q``
    orthonormal, ``Q`` zero below the band (``Q[i, j] = 0`` for ``i > j + band``), ``R`` as the full-height
    QR's; the last blocks' windows are clamped at the bottom row."""
    rng = np.random.default_rng(5)
    m, n = 100, 60
    a = _rand(rng, (m, n), np.float64)
    a[np.arange(m)[:, None] > np.arange(n)[None, :] + band] = 0.0
    _, full = _qr_program((m, n), "f64", None, block_size, segments)
    _, banded = _qr_program((m, n), "f64", band, block_size, segments)
    want = [np.asarray(o) for o in full(a)]
    got = [np.asarray(o) for o in banded(a)]
    _check_qr(a, got[0], got[2], np.float64)
    assert not got[2][np.arange(m)[:, None] > np.arange(n)[None, :] + band].any()
    assert np.allclose(np.triu(got[0][:n]), np.triu(want[0][:n]), rtol=0, atol=1e-12 * np.abs(a).max())


def test_band_is_used_not_checked():
    """``lower_bandwidth`` is a promise: on a full matrix a too small band gives a wrong factorisation (the
    windows really cut the rows), while ``None`` and a band as tall as the matrix give the full QR."""
    rng = np.random.default_rng(7)
    m, n = 120, 80
    a = _rand(rng, (m, n), np.float64)
    got = [np.asarray(o) for o in _qr_program((m, n), "f64", 8)[1](a)]
    r = np.triu(got[0][:n])
    assert np.abs(got[2] @ r - a).max() > 1e-3
    for band in (None, m - 16):
        text, prog = _qr_program((m, n), "f64", band)
        out = [np.asarray(o) for o in prog(a)]
        _check_qr(a, out[0], out[2], np.float64)


def test_unblocked_ignores_the_band():
    """Up to ``QR_UNBLOCKED`` reflectors the unblocked loop runs whatever the band: the same program."""
    shape = (40, 20)
    assert _qr_program(shape, "f32", None)[0] == _qr_program(shape, "f32", 20)[0]
