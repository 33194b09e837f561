"""QDWH polar decomposition and the QDWH-SVD (``passes/lapack/polar.py``) against scipy's polar factor and
jaxlib's LAPACK ``gesdd`` on XLA CPU, with the bounds of ``test_lapack_decompositions.py``.

The SVD cases lower ``SVD_POLAR_MIN`` so that small matrices take the QDWH path (at the default it starts
beyond 64 columns).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import hlokit
from hlokit import backend
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import polar, spectral

from test_lapack_blocked import _legalize, _run
from test_lapack_decompositions import check, export

C = 16.0
TYPES = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128}


@pytest.fixture
def polar_svd(monkeypatch):
    monkeypatch.setattr(spectral, "SVD_POLAR_MIN", 4)


def _polar_program(shape, t: str):
    e = Emitter()
    (a,) = e.args([(shape, t)])
    text = e.text("main", [a], [polar.qdwh_polar(e, a)]).replace("func.func private @main", "func.func @main")
    return backend.compile(hlokit.parse(text, context=hlokit.make_context()))


def _matrix(rng, shape, dtype, cond):
    *batch, m, n = shape
    cplx = np.dtype(dtype).kind == "c"

    def rand(*s):
        x = rng.standard_normal(s)
        return x + 1j * rng.standard_normal(s) if cplx else x

    u, _ = np.linalg.qr(rand(*batch, m, n))
    v, _ = np.linalg.qr(rand(*batch, n, n))
    s = np.geomspace(1.0, 1.0 / cond, n)
    return ((u * s[None, :]) @ np.conj(np.swapaxes(v, -1, -2))).astype(dtype)


@pytest.mark.parametrize("t, cond", [("f32", 1e3), ("f64", 1e8), ("complex<f32>", 10.0), ("complex<f64>", 1e12)])
def test_polar_factor_equals_scipy(t, cond):
    dtype = TYPES[t]
    shape = (2, 13, 7)
    a = _matrix(np.random.default_rng(1), shape, dtype, cond)
    got = np.asarray(_polar_program(shape, t)(a)[0])
    eps = np.finfo(dtype).eps
    for i in range(shape[0]):
        want, _ = scipy.linalg.polar(a[i].astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
        assert np.abs(got[i] - want).max() <= C * shape[-1] * eps * cond
        gram = np.conj(got[i].T) @ got[i]
        assert np.abs(gram - np.eye(shape[-1])).max() <= C * shape[-1] * eps


def test_polar_of_zero_is_zero_and_schedule_is_short():
    got = np.asarray(_polar_program((5, 5), "f32")(np.zeros((5, 5), np.float32))[0])
    assert not got.any()
    # The weights are fixed when the program is built: 4 steps from 1e-9 (f32), 6 from 1e-18 (f64), the
    # first two / three with c > 100 (QR-based).
    for t, steps, by_qr in (("f32", 4, 2), ("f64", 6, 3)):
        sched = polar.qdwh_schedule(polar.L0[t], float(np.finfo(TYPES[t]).eps))
        assert len(sched) == steps and sum(c > polar.CHOLESKY_C_MAX for _, _, c in sched) == by_qr
    with pytest.raises(ValueError):
        e = Emitter()
        (a,) = e.args([((3, 5), "f32")])
        polar.qdwh_polar(e, a)


@pytest.mark.parametrize("name, dtype", [("svd", "float32"), ("svd_reduced", "complex128"), ("svdvals", "float64"),
                                         pytest.param("pinv", "complex64", marks=pytest.mark.slow)])
def test_polar_svd_equals_lapack(polar_svd, name, dtype):
    legal = _run(name, dtype, (2, 3), 11)
    assert "stablehlo.cholesky" not in legal  # the Cholesky steps are the blocked library ones


@pytest.mark.parametrize("dtype", ["complex64", "float64"])
def test_polar_svd_singular_inputs(polar_svd, dtype):
    n = 9
    text = export.lower("svd", dtype, (2,), n)
    args = export.inputs("svd", dtype, (2,), n, cond=10.0, singular=True, seed=3)
    check("svd", dtype, args, backend.compile(_legalize(text))(*args), backend.compile(text)(*args))


def test_polar_svd_zero_and_nan(polar_svd):
    text = export.lower("svd", "float32", (3,), 9)
    (a,) = export.inputs("svd", "float32", (3,), 9)
    a[0] = 0.0
    a[1, 1, 0] = np.nan
    u, s, vh = (np.asarray(x) for x in backend.compile(_legalize(text))(a))
    assert not s[0].any() and np.isnan(s[1]).all() and not np.isnan(s[2]).any()
    for x in (u[0], vh[0]):  # zero matrix: orthonormal vectors all the same
        assert np.abs(x.T @ x - np.eye(9)).max() <= C * 9 * np.finfo(np.float32).eps
