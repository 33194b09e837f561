"""The bidiagonal SVD route of ``passes/lapack/bidiagonal.py`` on XLA CPU: the blocked reduction (LAPACK ``?gebrd`` /
``?labrd``) and its back-transformations (``?ormbr``), the bidiagonal divide and conquer (``bidiagonal_svd``,
LAPACK ``?bdsdc``; its numpy design ``lapack_reference.bdsdc``), and ``gesdd`` through them.

Bounds (``eps`` of the element type, ``n`` the columns): ``||Q^H A P - B||_F <= C n eps ||A||_F``,
``||Q^H Q - I||_F`` and ``||P^H P - I||_F <= C n eps``, ``d`` and ``e`` real; the reflectors, ``tauq``, ``taup``,
``d`` and ``e`` those of the unblocked numpy mirror (``lapack_reference.gebrd``, LAPACK ``?gebd2``) to
``C n eps ||A||``. Shapes: square and tall, one panel and several, panels cut by the padding, several loops
(``segments``), a batch.
"""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
import lapack_reference as ref
from hlokit.backend import compile as xla_compile
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import bidiagonal, spectral
from hlokit.passes.lapack.matrix import identity_matrix
from test_lapack_blocked import _run
from test_lapack_polar import check_svd_singular_inputs, check_svd_zero_and_nan

C = 4.0
DTYPES = {"f32": np.float32, "f64": np.float64, "complex<f32>": np.complex64, "complex<f64>": np.complex128}


def _program(shape: tuple[int, ...], t: str, nb: int | None, segments: int | None):
    batch, (m, n) = list(shape[:-2]), shape[-2:]
    e = Emitter()
    (a,) = e.args([(shape, t)])
    packed, d, sup, tauq, taup = bidiagonal.gebrd_blocked(e, a, nb, segments)
    q = bidiagonal.apply_gebrd_q(e, packed, tauq, identity_matrix(e, batch + [m, m], t))
    p = bidiagonal.apply_gebrd_p(e, packed, taup, identity_matrix(e, batch + [n, n], t))
    text = e.text("main", [a], [packed, d, sup, tauq, taup, q, p]).replace("func.func private @main", "func.func @main")
    return xla_compile(hlokit.parse(text, context=hlokit.make_context()))


def _random(shape: tuple[int, ...], t: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if t.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(DTYPES[t])


CASES = [  # (shape, type, nb, segments)
    ((1, 1), "f64", None, None),
    ((5, 5), "f64", 2, None),
    ((7, 5), "f32", None, None),
    ((40, 33), "f64", 8, None),  # the last panel cut by the padding
    ((64, 64), "f32", None, None),  # two panels of the default 32, one loop each
    ((100, 70), "f64", 16, 3),
    ((6, 4), "complex<f64>", None, None),
    ((40, 33), "complex<f32>", 8, None),
    ((2, 9, 6), "f64", 4, None),
    ((3, 12, 12), "complex<f64>", 4, 2),
]


@pytest.mark.parametrize("shape,t,nb,segments", CASES, ids=lambda x: str(x).replace(" ", ""))
def test_gebrd(shape, t, nb, segments):
    a = _random(shape, t, sum(shape))
    packed, d, sup, tauq, taup, q, p = (np.asarray(x) for x in _program(shape, t, nb, segments)(a))
    m, n = shape[-2:]
    eps = float(np.finfo(DTYPES[t]).eps)
    norm = np.linalg.norm(a, axis=(-2, -1))[..., None, None]
    assert np.isrealobj(d) and np.isrealobj(sup) and d.shape == shape[:-2] + (n,) and sup.shape == shape[:-2] + (n - 1,)
    b = np.zeros(shape, DTYPES[t])
    idx = np.arange(n)
    b[..., idx, idx] = d
    b[..., idx[:-1], idx[:-1] + 1] = sup
    qh = np.conj(np.swapaxes(q, -1, -2))
    resid = np.linalg.norm(qh @ a @ p - b, axis=(-2, -1))[..., None, None]
    assert np.all(resid <= C * n * eps * norm), (resid / (eps * norm)).max()
    assert np.linalg.norm(qh @ q - np.eye(m), axis=(-2, -1)).max() <= C * n * eps
    assert np.linalg.norm(np.conj(np.swapaxes(p, -1, -2)) @ p - np.eye(n), axis=(-2, -1)).max() <= C * n * eps
    # LAPACK's reflectors and conventions (the unblocked ?gebd2 in numpy, in f64 / complex128)
    wide = np.complex128 if t.startswith("complex") else np.float64
    rx, rd, re_, rtq, rtp = ref.gebrd(a.astype(wide))
    tol = C * n * eps * np.abs(a).max()
    for got, want in ((packed, rx), (d, rd), (sup, re_)):
        assert got.size == 0 or np.abs(got - want).max() <= tol * max(1.0, np.abs(want).max())
    for got, want in ((tauq, rtq), (taup, rtp)):  # |tau| <= 2
        assert np.abs(got - want).max() <= C * n * eps * 2


def test_zero_matrix_and_tall():
    """A zero matrix: every ``tau`` 0, ``Q`` and ``P`` the identity, ``B`` zero."""
    shape = (37, 20)
    run = _program(shape, "f32", 8, None)
    packed, d, sup, tauq, taup, q, p = (np.asarray(x) for x in run(np.zeros(shape, np.float32)))
    assert not packed.any() and not d.any() and not sup.any() and not tauq.any() and not taup.any()
    assert np.array_equal(q, np.eye(37)) and np.array_equal(p, np.eye(20))


def test_rejects_wide():
    e = Emitter()
    (a,) = e.args([((3, 5), "f32")])
    with pytest.raises(ValueError, match="m >= n"):
        bidiagonal.gebrd_blocked(e, a)


def _bidiagonal_cases():
    rng = np.random.default_rng(7)
    d0 = rng.standard_normal(64)
    d0[::3] = 0.0
    return {
        "random-1": (rng.standard_normal(1), np.zeros(0)),
        "random-5": (rng.standard_normal(5), rng.standard_normal(4)),
        "random-13": (rng.standard_normal(13), rng.standard_normal(12)),
        "random-100": (rng.standard_normal(100), rng.standard_normal(99)),
        "identity": (np.ones(64), np.zeros(63)),
        "zero-diagonal": (np.zeros(64), np.ones(63)),
        "zeros-in-d": (d0, rng.standard_normal(63)),
        "zero": (np.zeros(32), np.zeros(31)),
        "ones": (np.ones(64), np.ones(63)),
        "integer-ties": (np.round(rng.standard_normal(64)), np.round(rng.standard_normal(63))),
        "graded": (np.logspace(0, -12, 64), 0.5 * np.logspace(0, -12, 63)),
    }


@pytest.mark.parametrize("name", list(_bidiagonal_cases()))
def test_bdsdc_reference(name):
    """The numpy design of the bidiagonal divide and conquer (``lapack_reference.bdsdc``, docs/lapack.md eighth
    round): ``||B - U S V^T||``, ``U^T U - I``, ``V^T V - I`` and the singular values against LAPACK's
    (``numpy.linalg.svd``) to ``4 n eps ||B||``; on the graded matrix (singular values from 1 to 1e-12) each
    singular value to ``4 n eps`` of itself (the squared poles' differences taken as ``(s_i - s_j)(s_i + s_j)``
    and the roots relative to their nearer pole)."""
    d, e = _bidiagonal_cases()[name]
    n = d.shape[0]
    u, s, vt = ref.bdsdc(d, e)
    b = np.diag(d) + np.diag(e, 1)
    eps = float(np.finfo(np.float64).eps)
    bound = C * n * eps * max(np.linalg.norm(b, 2), 1e-300)
    assert np.all(np.diff(s) <= 0) and np.all(s >= 0)
    assert np.linalg.norm(b - (u * s) @ vt, 2) <= bound
    assert np.linalg.norm(u.T @ u - np.eye(n), 2) <= C * n * eps
    assert np.linalg.norm(vt @ vt.T - np.eye(n), 2) <= C * n * eps
    want = np.linalg.svd(b, compute_uv=False)
    assert np.abs(s - want).max() <= bound
    if name == "graded":
        assert np.all(np.abs(s - want) <= C * n * eps * want)


# -- the bidiagonal divide and conquer (bidiagonal_svd) ------------------------------------------------------

def _bd_program(n: int, t: str, batch=()):
    e = Emitter()
    d, o = e.args([(tuple(batch) + (n,), t), (tuple(batch) + (n - 1,), t)])
    s, u, v = bidiagonal.bidiagonal_svd(e, d, o)
    text = e.text("main", [d, o], [s, u, v]).replace("func.func private @main", "func.func @main")
    return xla_compile(hlokit.parse(text, context=hlokit.make_context()))


BD_CASES = [(9, "f32"), (37, "f64"), pytest.param(2, "f64", marks=pytest.mark.slow),
            pytest.param(37, "f32", marks=pytest.mark.slow), pytest.param(64, "f64", marks=pytest.mark.slow)]


@pytest.mark.parametrize("n,t", BD_CASES)
def test_bidiagonal_svd(n, t):
    """``bidiagonal_svd`` on the matrices of :func:`test_bdsdc_reference` cut to order ``n`` (one program per
    order and type, the cases as a batch): ``||B - U S V^T||``, ``U^T U - I``, ``V^T V - I``, the singular
    values against LAPACK's to ``4 n eps ||B||`` (``16 n eps`` for f32: its padded leaves' Jacobi rounding)
    and descending; graded: each value to ``4 n eps`` of itself in f64."""
    cases = {k: (d[:n] if d.shape[0] >= n else np.resize(d, n), np.resize(e, n - 1))
             for k, (d, e) in _bidiagonal_cases().items() if k not in ("random-1", "random-5", "random-13")}
    dtype = DTYPES[t]
    names = list(cases)
    d = np.stack([cases[k][0] for k in names]).astype(dtype)
    e = np.stack([cases[k][1] for k in names]).astype(dtype)
    s, u, v = (np.asarray(x).astype(np.float64) for x in _bd_program(n, t, (len(names),))(d, e))
    eps = float(np.finfo(dtype).eps)
    c = C if t == "f64" else 4 * C
    for i, name in enumerate(names):
        b = np.diag(d[i].astype(np.float64)) + np.diag(e[i].astype(np.float64), 1)
        norm = np.linalg.norm(b, 2)
        bound = c * n * eps * norm
        assert np.all(np.diff(s[i]) <= 0), name
        assert np.linalg.norm(b - (u[i] * s[i]) @ v[i].T, 2) <= bound, name
        assert np.linalg.norm(u[i].T @ u[i] - np.eye(n), 2) <= c * n * eps, name
        assert np.linalg.norm(v[i].T @ v[i] - np.eye(n), 2) <= c * n * eps, name
        want = np.linalg.svd(b, compute_uv=False)
        assert np.abs(s[i] - want).max() <= bound, name
        if name == "graded" and t == "f64":
            assert np.all(np.abs(s[i] - want) <= c * n * eps * want), name


def test_bidiagonal_svd_nan():
    d = np.ones((2, 9), np.float32)
    d[1, 3] = np.nan
    s, _, _ = (np.asarray(x) for x in _bd_program(9, "f32", (2,))(d, np.ones((2, 8), np.float32)))
    assert not np.isnan(s[0]).any() and np.isnan(s[1]).all()


# -- gesdd by the bidiagonal route (spectral.SVD_ROUTE) -------------------------------------------------------

@pytest.fixture
def bidiagonal_route(monkeypatch):
    """Small matrices take the bidiagonal route (by default it starts beyond 64 columns)."""
    monkeypatch.setattr(spectral, "SVD_POLAR_MIN", 4)
    monkeypatch.setattr(spectral, "SVD_ROUTE", "bidiagonal")


@pytest.mark.parametrize("name, dtype", [("svd", "float32"), ("svd_reduced", "complex128"),
                                         pytest.param("svdvals", "float64", marks=pytest.mark.slow),
                                         pytest.param("svd", "complex64", marks=pytest.mark.slow),
                                         pytest.param("pinv", "float64", marks=pytest.mark.slow)])
def test_gesdd_equals_lapack(bidiagonal_route, name, dtype):
    """jnp.linalg's SVDs legalized against jaxlib's LAPACK (``test_lapack_decompositions.check``'s
    condition-number-aware bounds), batch of 2 x 3, order 11, wide and tall shapes by the functions' own."""
    _run(name, dtype, (2, 3), 11)


@pytest.mark.parametrize("dtype", ["complex64", "float64"])
def test_gesdd_singular_inputs(bidiagonal_route, dtype):
    check_svd_singular_inputs(dtype)


def test_gesdd_zero_and_nan(bidiagonal_route):
    check_svd_zero_and_nan()


def test_gesdd_default_route_beyond_64_columns():
    """At the default threshold an SVD of more than 64 columns takes the bidiagonal route: f32, order 72 (padded to
    96: leaves of 3, five merge levels; three gebrd panels), condition 1e3, against LAPACK."""
    assert spectral.SVD_ROUTE == "bidiagonal" and spectral.SVD_POLAR_MIN == 64
    _run("svd", "float32", (), 72, conds=(1e3,))
