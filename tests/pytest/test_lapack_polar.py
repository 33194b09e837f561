"""QDWH polar decomposition and the QDWH-SVD (``passes/lapack/polar.py``) against scipy's polar factor and
jaxlib's LAPACK ``gesdd`` on XLA CPU, with the bounds of ``test_lapack_decompositions.py``.

The SVD cases lower ``SVD_POLAR_MIN`` and set ``SVD_ROUTE`` to ``"polar"`` so that small matrices take the
QDWH path (by default SVDs beyond 64 columns take the bidiagonal route). The route is not the default one, so
the default run keeps one case of each kind (each step form, the certificate, the restart, the SVD against
LAPACK) and ``-m slow`` runs the rest.
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
    monkeypatch.setattr(spectral, "SVD_ROUTE", "polar")


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


@pytest.mark.parametrize("name, dtype", [("svd", "float32"), pytest.param("svd_reduced", "complex128", marks=pytest.mark.slow),
                                         pytest.param("svdvals", "float64", marks=pytest.mark.slow),
                                         pytest.param("pinv", "complex64", marks=pytest.mark.slow)])
def test_polar_svd_equals_lapack(polar_svd, name, dtype):
    legal = _run(name, dtype, (2, 3), 11)
    assert "stablehlo.cholesky" not in legal  # the Cholesky steps are the blocked library ones


def check_svd_singular_inputs(dtype: str) -> None:
    """jnp.linalg.svd of a batch of two singular order-9 matrices legalized, against jaxlib's LAPACK
    (``test_lapack_decompositions.check``); shared by the SVD routes' tests."""
    n = 9
    text = export.lower("svd", dtype, (2,), n)
    args = export.inputs("svd", dtype, (2,), n, cond=10.0, singular=True, seed=3)
    check("svd", dtype, args, backend.compile(_legalize(text))(*args), backend.compile(text)(*args))


def check_svd_zero_and_nan() -> None:
    """A zero matrix gives zero singular values and orthonormal vectors, a NaN entry NaN singular values (its
    batch element only); shared by the SVD routes' tests."""
    text = export.lower("svd", "float32", (3,), 9)
    (a,) = export.inputs("svd", "float32", (3,), 9)
    a[0] = 0.0
    a[1, 1, 0] = np.nan
    u, s, vh = (np.asarray(x) for x in backend.compile(_legalize(text))(a))
    assert not s[0].any() and np.isnan(s[1]).all() and not np.isnan(s[2]).any()
    for x in (u[0], vh[0]):  # zero matrix: orthonormal vectors
        assert np.abs(x.T @ x - np.eye(9)).max() <= C * 9 * np.finfo(np.float32).eps


@pytest.mark.parametrize("dtype", ["complex64", pytest.param("float64", marks=pytest.mark.slow)])
def test_polar_svd_singular_inputs(polar_svd, dtype):
    check_svd_singular_inputs(dtype)


def test_polar_svd_zero_and_nan(polar_svd):
    check_svd_zero_and_nan()


# -- l_0 estimated at run time (polar.ESTIMATE_L0) ----------------------------------------------------------

def _program(shape, t: str, build):
    e = Emitter()
    (a,) = e.args([(shape, t)])
    text = e.text("main", [a], build(e, a)).replace("func.func private @main", "func.func @main")
    return backend.compile(hlokit.parse(text, context=hlokit.make_context()))


def _frobenius_scaled(a):
    return a / np.linalg.norm(a, axis=(-2, -1), keepdims=True)


@pytest.mark.parametrize("t, cond", [pytest.param("f32", 10.0, marks=pytest.mark.slow), ("f32", 40.0), ("f64", 1e5),
                                      pytest.param("complex<f64>", 5.0, marks=pytest.mark.slow)])
def test_scale_and_certificate(t, cond):
    """``s X`` has ``sigma_max`` in [0.7, 1.15]; the certificate (no QR-based step, one trip) holds exactly
    where ``sigma_min(s X) >= L_QR`` with a margin (the cases are chosen away from the threshold)."""
    dtype = TYPES[t]
    shape = (2, 40, 30)
    a = _frobenius_scaled(_matrix(np.random.default_rng(2), shape, dtype, cond))
    s, shift = (np.asarray(x) for x in _program(shape, t, lambda e, x: list(polar._scale(e, polar._gram(e, x))))(a))
    sv = np.linalg.svd(a.astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64), compute_uv=False)
    assert (s * sv[:, 0] <= 1.15).all() and (s * sv[:, 0] >= 0.7).all()
    assert np.allclose(shift, polar.L_QR ** 2 / s ** 2, rtol=1e-2)
    smin = s * sv[:, -1]
    certified = smin > 1.2 * polar.L_QR
    assert certified.all() or (smin < 0.8 * polar.L_QR).all()
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, t)(a))
    assert (nq == 0, trips) == (bool(certified.all()), 1 if certified.all() else 2)


def test_scale_of_zero_and_nan_is_one():
    shape = (3, 12, 12)
    a = _matrix(np.random.default_rng(4), shape, np.float32, 10.0)
    a[0] = 0.0
    a[1, 2, 2] = np.nan
    s, shift = (np.asarray(x) for x in _program(shape, "f32", lambda e, x: list(polar._scale(e, polar._gram(e, x))))(a))
    assert (s[:2] == 1).all() and np.isnan(shift[:2]).all() and s[2] != 1 and np.isfinite(shift[2])


def _dynamic_polar(shape, t):
    return _program(shape, t, lambda e, x: polar._dynamic(e, x))


def _assert_polar(got, a, dtype, cond):
    eps = np.finfo(dtype).eps
    n = a.shape[-1]
    for i in range(a.shape[0]):
        want, _ = scipy.linalg.polar(a[i].astype(np.complex128 if np.dtype(dtype).kind == "c" else np.float64))
        assert np.abs(got[i] - want).max() <= C * n * eps * cond
        assert np.abs(np.conj(got[i].T) @ got[i] - np.eye(n)).max() <= C * n * eps


@pytest.mark.parametrize("t, cond, qr_steps", [("f32", 10.0, 0), pytest.param("f64", 10.0, 0, marks=pytest.mark.slow),
                                                ("f32", 1e6, 2), ("f64", 1e14, 2)])
def test_dynamic_steps_follow_the_conditioning(t, cond, qr_steps):
    """A well-conditioned matrix takes no QR-based step (one trip: certificate, Cholesky-based steps); one
    that is not certified takes the schedule from ``L0`` in a second trip: 2 QR-based steps (``c >
    STEP_C_MAX``; f64's third, ``c = 155``, is Cholesky-based). 2-3 Cholesky-based steps then
    Newton-Schulz (f32 from ``L_QR``: 2)."""
    dtype = TYPES[t]
    shape = (2, 30, 30)
    a = _frobenius_scaled(_matrix(np.random.default_rng(6), shape, dtype, cond))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, t)(a))
    assert (nq, trips) == (qr_steps, 1 if qr_steps == 0 else 2) and 1 <= nc <= 4
    if cond < 1e3:
        _assert_polar(u, a, dtype, cond)


def test_over_optimistic_estimate_restarts_from_l0(monkeypatch):
    """An ``l_0`` estimate far above ``sigma_min`` leaves ``X`` short of orthonormal: the check sends that batch
    element again from ``L0``, and the polar factor is as accurate as on the first path."""
    monkeypatch.setattr(polar, "CERTIFY_SLACK", -1e14)  # the Cholesky test passes for every matrix
    shape = (2, 20, 20)
    a = _frobenius_scaled(_matrix(np.random.default_rng(7), shape, np.float64, 1e3))
    a[1] = _frobenius_scaled(_matrix(np.random.default_rng(8), (20, 20), np.float64, 2.0))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, "f64")(a))
    assert trips == 2 and nq >= 2
    _assert_polar(u, a, np.float64, 1e3)


@pytest.mark.slow
def test_mixed_batch():
    """A well-conditioned matrix beside singular, zero and NaN ones: the batch takes the ``L0`` way too (a
    second trip), and each result is what it is alone."""
    shape = (4, 12, 12)
    a = _frobenius_scaled(_matrix(np.random.default_rng(4), shape, np.float64, 10.0))
    a[1, :, 3] = a[1, :, 5]
    a[2] = 0.0
    a[3, 2, 2] = np.nan
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, "f64")(a))
    assert trips == 2 and nq == 2
    _assert_polar(u[:1], a[:1], np.float64, 10.0)
    assert not u[2].any() and np.isnan(u[3]).all() and np.isfinite(u[1]).all()
    alone = np.asarray(_dynamic_polar((1, 12, 12), "f64")(a[:1])[0])
    assert np.abs(alone - u[:1]).max() <= C * 12 * np.finfo(np.float64).eps


def _backward_error(u, a):
    """``||A - U_p H||_F / ||A||_F`` with ``H`` the Hermitian part of ``U_p^H A``, in double precision."""
    wide = np.complex128 if np.iscomplexobj(a) else np.float64
    u, a = u.astype(wide), a.astype(wide)
    h = np.conj(u.T) @ a
    return np.linalg.norm(a - u @ (h + np.conj(h.T)) / 2) / np.linalg.norm(a)


@pytest.mark.parametrize("t", ["f32", pytest.param("complex<f32>", marks=pytest.mark.slow)])
def test_wide_steps_for_single_precision(monkeypatch, t):
    """f32 / complex<f32> matrices that are not certified take their 2 steps with ``c > 100`` from ``L0``
    Cholesky-based in f64 / complex<f64> (``WIDE_STEPS``): the program has no QR of ``[sqrt(c) X; I]``, the polar
    factor keeps the bounds and its backward error is a few ``eps``; with ``WIDE_STEPS`` off there is no
    f64 in the program, as by default (an f32 program holds no f64 op: TPUs have none)."""
    monkeypatch.setattr(polar, "WIDE_STEPS", True)
    dtype = TYPES[t]
    shape = (2, 30, 24)
    a = _frobenius_scaled(_matrix(np.random.default_rng(9), shape, dtype, 1e5))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, t)(a))
    assert (nq, trips) == (2, 2)
    _assert_polar(u, a, dtype, 1e5)
    for i in range(shape[0]):
        assert _backward_error(u[i], a[i]) <= 8 * np.finfo(dtype).eps

    def text():
        e = Emitter()
        (x,) = e.args([(shape, t)])
        return e.text("main", [x], polar._dynamic(e, x))

    stacked = "2x54x24x"  # [sqrt(c) X; I] of the QR-based step
    wide = text()
    assert "f64" in wide and stacked not in wide
    monkeypatch.undo()
    narrow = text()  # (the default)
    assert "f64" not in narrow and stacked in narrow


@pytest.mark.slow
def test_f64_third_step_is_cholesky_based():
    """From ``L0[f64]`` the third step has ``c = 155``: Cholesky-based under ``STEP_C_MAX['f64']``, so 2
    QR-based steps; the polar factor of an f64 matrix of condition 1e10 keeps the bounds and a backward
    error of a few ``eps``."""
    assert 100 < polar.qdwh_schedule(polar.L0["f64"], 2.0 ** -52)[2][2] <= polar.STEP_C_MAX["f64"]
    shape = (2, 24, 24)
    a = _frobenius_scaled(_matrix(np.random.default_rng(10), shape, np.float64, 1e10))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, "f64")(a))
    assert (nq, trips) == (2, 2)
    _assert_polar(u, a, np.float64, 1e10)
    for i in range(shape[0]):
        assert _backward_error(u[i], a[i]) <= 16 * np.finfo(np.float64).eps


def test_wide_steps_cholesky_is_left_looking():
    """The wide steps' factorisation (``static_max=WIDE_CHOLESKY_STATIC_MAX``, 0: the left-looking form at
    every order) equals numpy's and the default loop-free form's factor, in a much shorter program."""
    from hlokit.passes.lapack.cholesky import build_cholesky

    n = 48
    rng = np.random.default_rng(11)
    x = rng.standard_normal((n, n))
    a = x.T @ x / n + np.eye(n)
    texts, got = [], []
    for static_max in (None, polar.WIDE_CHOLESKY_STATIC_MAX):
        e = Emitter()
        (z,) = e.args([((n, n), "f64")])
        text = e.text("main", [z], [build_cholesky(e, z, lower=True, static_max=static_max)])
        texts.append(len(text))
        got.append(np.asarray(_program((n, n), "f64", lambda e, z: [build_cholesky(e, z, lower=True,
                                                                                   static_max=static_max)])(a)[0]))
    want = np.linalg.cholesky(a)
    for g in got:
        assert np.abs(g - want).max() <= C * n * np.finfo(np.float64).eps * np.abs(want).max()
    assert texts[1] < texts[0] / 2


@pytest.mark.parametrize("t, m, n, cond, large_from", [("f32", 100, 96, 1e6, None),
                                                       pytest.param("complex<f64>", 96, 80, 1e12, None,
                                                                    marks=pytest.mark.slow),
                                                       pytest.param("f64", 96, 96, 1e10, 64, marks=pytest.mark.slow)])
def test_structured_qr_step(monkeypatch, t, m, n, cond, large_from):
    """The QR-based step on ``[sqrt(c) X; I]`` beyond ``QR_UNBLOCKED`` columns uses the stacked matrix's band
    (``STRUCTURED_QR``: windows of ``m + 32`` rows) and the triangular ``Q_2`` in ``Q_1 Q_2^H``: the step
    equals the full-height one's to rounding (on a matrix of condition 10, where the QR's forward error is
    that small), and the whole polar factor of a matrix that is not certified (2 QR-based steps) keeps the
    bounds and a backward error of a few ``eps``. ``large_from``: ``QR_LARGE_FROM`` lowered so that the step
    runs in ``QR_SEGMENTS_LARGE`` loops."""
    if large_from is not None:
        monkeypatch.setattr(polar, "QR_LARGE_FROM", large_from)
    dtype = TYPES[t]
    shape = (1, m, n)
    b = _frobenius_scaled(_matrix(np.random.default_rng(13), shape, dtype, 10.0))
    rt = "f32" if "f32" in t else "f64"
    a0, b0, c0 = polar.qdwh_schedule(polar.L0[rt], 1e-3)[0]
    weights = (np.sqrt(c0), b0 / c0, (a0 - b0 / c0) / np.sqrt(c0))

    def step(e, x):
        from hlokit.passes.lapack.matrix import to_elem
        return [polar._qr_step(e, x, *(to_elem(e, e.scalar(w, rt), t) for w in weights))]

    def run():
        e = Emitter()
        (x,) = e.args([(shape, t)])
        text = e.text("main", [x], step(e, x))
        return text, np.asarray(_program(shape, t, step)(b)[0])

    window = f"1x{m + 32}x{n}x"
    text, got = run()
    assert polar.STRUCTURED_QR and window in text
    monkeypatch.setattr(polar, "STRUCTURED_QR", False)
    text_full, want = run()
    assert window not in text_full or large_from is not None  # (then the full QR's last loop has that shape)
    assert np.abs(got - want).max() <= C * m * np.finfo(dtype).eps * np.abs(want).max()
    if large_from is not None:  # the loops of the later segments work on narrower windows
        assert f"1x{m + 32}x{n - 32}x" in text
    monkeypatch.setattr(polar, "STRUCTURED_QR", True)
    a = _frobenius_scaled(_matrix(np.random.default_rng(12), shape, dtype, cond))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, t)(a))
    assert (nq, trips) == (2, 2)
    _assert_polar(u, a, dtype, cond)
    assert _backward_error(u[0], a[0]) <= 16 * np.finfo(dtype).eps


# -- CholeskyQR2 for the QR-based steps with c <= CHOLESKY_QR2_C_MAX ---------------------------------------

def _second_step(rt: str):
    """``(l, (a, b, c))``: the bound before the second step from ``L0[rt]`` and that step's weights."""
    l = polar._weights_of(polar.L0[rt])[3]
    return l, polar._weights_of(l)[:3]


@pytest.mark.parametrize("t, m, n", [("f32", 72, 64), pytest.param("f64", 72, 64, marks=pytest.mark.slow), pytest.param("complex<f32>", 40, 40, marks=pytest.mark.slow),
                                     pytest.param("complex<f64>", 48, 40, marks=pytest.mark.slow)])
def test_cholesky_qr2_step(t, m, n):
    """The second step from ``L0`` (``c`` 4.7e3 for f32, 4.6e7 for f64) takes the CholeskyQR form
    (``STEP_C_MAX < c <= CHOLESKY_QR2_C_MAX``, the first step's ``c`` above it), and its result matches the
    step by a Householder QR (numpy's, in double precision) to ``2 sqrt(c) eps`` (the step's own condition:
    ``X`` moved by ``eps`` moves ``sqrt(c) X (I + c X^H X)^{-1}`` by up to ``sqrt(c) eps``), as the library's
    Householder step does; the one-pass form (the Cholesky-based step, ``(I + c X^H X)^{-1}`` by its Cholesky
    factor) misses that by its ``c eps`` loss of orthogonality (measured: CholeskyQR2 0.09-0.25 of the bound,
    Householder 0.24-0.69, one pass 4 (f32) and 500 (f64) times it)."""
    from hlokit.passes.lapack.matrix import to_elem

    dtype = TYPES[t]
    rt = "f32" if "f32" in t else "f64"
    eps = np.finfo(dtype).eps
    l, (a, b, c) = _second_step(rt)
    assert polar.STEP_C_MAX[rt] < c <= polar.CHOLESKY_QR2_C_MAX[rt] < polar._weights_of(polar.L0[rt])[2]
    rng = np.random.default_rng(14)
    u, v = _matrix(rng, (m, n), dtype, 1.0), _matrix(rng, (n, n), dtype, 1.0)
    x = ((u * np.geomspace(1.0, l, n).astype(dtype)) @ v).astype(dtype)
    wide = x.astype(np.complex128)
    q, _ = np.linalg.qr(np.concatenate([np.sqrt(c) * wide, np.eye(n)]))
    want = wide * (b / c) + (a - b / c) / np.sqrt(c) * q[:m] @ np.conj(q[m:].T)
    if np.dtype(dtype).kind != "c":
        want = want.real
    sc = np.sqrt(c)

    def run(step, weights):
        return np.asarray(_program((m, n), t, lambda e, y: [step(e, y, *(to_elem(e, e.scalar(w, rt), t)
                                                                        for w in weights))])(x)[0])

    bound = 2 * sc * eps * np.abs(want).max()
    qr_weights = (sc, b / c, (a - b / c) / sc)
    errs = [np.abs(run(step, qr_weights) - want).max() / bound for step in (polar._cholesky_qr2_step, polar._qr_step)]
    errs.append(np.abs(run(polar._cholesky_step, (c, b / c, a - b / c)) - want).max() / bound)
    assert max(errs[:2]) <= 1 < errs[2]


@pytest.mark.slow  # (the polar route is SVD_ROUTE "polar", not the default: its default tests keep the QR steps)
@pytest.mark.parametrize("t, cond", [("f32", 1e6), ("f64", 1e10)])
def test_cholesky_qr2_runs_in_the_polar_factor(monkeypatch, t, cond):
    """A matrix that is not certified takes its second QR-based step by :func:`polar._cholesky_qr2_step` (a
    copy that returns NaN makes the polar factor NaN), and none with ``CHOLESKY_QR2_C_MAX = None``; by default
    the polar factor keeps the bounds and a backward error of a few ``eps``."""
    dtype = TYPES[t]
    shape = (1, 40, 36)
    a = _frobenius_scaled(_matrix(np.random.default_rng(15), shape, dtype, cond))
    u, nq, nc, trips = (np.asarray(x) for x in _dynamic_polar(shape, t)(a))
    assert (nq, trips) == (2, 2)
    _assert_polar(u, a, dtype, cond)
    assert _backward_error(u[0], a[0]) <= 16 * np.finfo(dtype).eps
    step = polar._cholesky_qr2_step
    monkeypatch.setattr(polar, "_cholesky_qr2_step", lambda e, x, *w: step(e, x, *w) * e.const(float("nan"), x))
    assert np.isnan(np.asarray(_dynamic_polar(shape, t)(a)[0])).all()
    monkeypatch.setattr(polar, "CHOLESKY_QR2_C_MAX", None)
    got = np.asarray(_dynamic_polar(shape, t)(a)[0])
    assert np.isfinite(got).all()
    _assert_polar(got, a, dtype, cond)


# -- polar_svd's test of U^H U only where the iteration did not end orthonormal (polar.ORTHO_SKIP) ------------

@pytest.mark.slow
@pytest.mark.parametrize("t, cond", [("f32", 1e6), ("f64", 1e10)])
def test_orthonormality_test_only_where_needed(monkeypatch, t, cond):
    # A NaN-returning re-orthonormalisation and a zero slack: U comes out NaN wherever the U^H U test runs.
    monkeypatch.setattr(polar, "orthonormal_columns", lambda e, u: u * float("nan"))
    monkeypatch.setattr(polar, "ORTHO_SLACK", 0.0)
    dtype = TYPES[t]
    shape = (2, 24, 16)
    rng = np.random.default_rng(7)
    a = _matrix(rng, shape, dtype, cond)  # uncertified: the QR-based steps run
    svd = lambda e, x: list(polar.polar_svd(e, x, spectral.hermitian_eigh, "S"))  # noqa: E731
    s, u, v = (np.asarray(x) for x in _program(shape, t, svd)(a))
    eps = np.finfo(dtype).eps
    n = shape[-1]
    for i in range(shape[0]):
        want = np.linalg.svd(a[i].astype(np.float64), compute_uv=False)
        assert np.abs(s[i] - want).max() <= C * n * eps * want[0]
        assert np.abs(u[i].T @ u[i] - np.eye(n)).max() <= C * n * eps
        assert np.abs((u[i] * s[i]) @ v[i].T - a[i]).max() <= C * n * eps * want[0]
    # A zero matrix in the batch (U_p = 0: its singular values stay 0, below l_0): the test still runs. (A
    # rank-deficient matrix's rounding-level singular value is mapped to 1 by the steps, like the others.)
    b = a.copy()
    b[1] = 0.0
    assert np.isnan(np.asarray(_program(shape, t, svd)(b)[1])).any()
    # Without ORTHO_SKIP the test runs for every matrix.
    monkeypatch.setattr(polar, "ORTHO_SKIP", None)
    assert np.isnan(np.asarray(_program(shape, t, svd)(a)[1])).all()
