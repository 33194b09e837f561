"""``--stablehlo-legalize-lapack-custom-calls`` on QR (geqrf + orgqr/ungqr), eigh (syevd/heevd), SVD
(gesdd, gesvd), eig (geev) and Schur (gees) programs JAX exports for CPU (``examples/linalg/export.py``), and the interpreter on every
legalized ``jnp.linalg`` program.

The legalized program runs on XLA CPU and is compared with the original (jaxlib's LAPACK) on the same
inputs. Tolerances are first-order perturbation bounds with the constant ``C`` below, ``eps`` the unit
roundoff of the element type and ``n`` the order (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2nd ed.; Golub & Van Loan, *Matrix Computations*, 4th ed.):

* QR factors (the same Householder conventions as LAPACK, so the same signs and phases):
  ``C n eps cond(A)`` relative (Higham Thm 19.4 and its perturbation theory, §19.9);
* eigenvalues and singular values: ``C n eps ||A||_2`` absolute (Weyl; both sides backward stable);
* eigen- and singular vectors: aligned by their phase first (a vector is defined up to a unit scalar),
  then ``C n eps ||A||_2 / gap`` (Davis-Kahan sin-theta; ``gap`` the distance to the nearest other value);
* pinv and lstsq (unique for full-rank inputs): ``C n eps cond(A)`` relative (perturbation of the
  inverse);
* eig of a general matrix: the eigenvalues, paired with LAPACK's by a minimum-cost matching (the order of
  ``T``'s diagonal is the algorithm's), within ``C n eps ||A||_2 kappa_k`` (``kappa_k = 1 / |y_k^H x_k|``
  for unit left / right eigenvectors: the eigenvalue's condition number, Golub & Van Loan §7.2.2); every
  eigenvector by its backward error: ``||A v - w v|| <= C n eps ||A||_2`` (left: ``||u^H A - w u^H||``),
  norm 1 and its largest entry real, as LAPACK normalises them;
* the Schur form: ``Z^H Z = I`` and ``Z T Z^H = A`` within ``C n eps`` (relative), ``T`` upper triangular
  (complex) or LAPACK's real Schur form (standardised 2x2 blocks), ``T``'s eigenvalues as eig's.
"""

from __future__ import annotations

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

import hlokit
from hlokit import backend
from hlokit.passes import run_pipeline

from conftest import REPO
from sweeps import f32_and_c128_by_default, wide_slow

_spec = importlib.util.spec_from_file_location("hlokit_linalg_export_dec", REPO / "examples" / "linalg" / "export.py")
export = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export)

PIPELINE = "builtin.module(func.func(stablehlo-legalize-lapack-custom-calls))"
#: The constant of every bound.
C = 16.0
#: Condition numbers per precision (well and ill conditioned).
CONDS = {"float32": (10.0, 1e3), "complex64": (10.0, 1e3), "float64": (10.0, 1e8), "complex128": (10.0, 1e8)}

#: The functions of this file: (name, outputs kind).
FUNCTIONS = ["qr", "qr_complete", "eigh", "eigvalsh", "svd", "svd_reduced", "svdvals", "pinv", "lstsq", "norm2",
             "svd_qr", "svdvals_qr", "eig", "eigvals", "eig_left", "schur", "schur_complex"]
#: Functions checked as another one of the list (the same results from another LAPACK routine: gesvd).
CHECKED_AS = {"svd_qr": "svd", "svdvals_qr": "svdvals"}


def _legalize(text: str) -> str:
    m = hlokit.parse(text, context=hlokit.make_context())
    run_pipeline(m, PIPELINE)
    return str(m)


def _eps(dtype) -> float:
    return float(np.finfo(np.dtype(dtype)).eps)


def _rel(got, want) -> float:
    scale = max(float(np.max(np.abs(want))), np.finfo(np.float64).tiny)
    return float(np.max(np.abs(np.asarray(got) - want))) / scale


def _gaps(values: np.ndarray) -> np.ndarray:
    """Per entry of ``values`` ``[*b, k]``: the distance to the nearest other entry of the same matrix."""
    d = np.abs(values[..., :, None] - values[..., None, :])
    k = values.shape[-1]
    d[..., np.arange(k), np.arange(k)] = np.inf
    return np.min(d, axis=-1) if k > 1 else np.full(values.shape, np.inf)


def _phases(got_cols: np.ndarray, want_cols: np.ndarray) -> np.ndarray:
    """Unit scalars ``p`` ``[*b, k]`` with ``got[:, k] ~ want[:, k] p_k`` (column vectors)."""
    ip = np.sum(np.conj(want_cols) * got_cols, axis=-2)
    mag = np.abs(ip)
    return np.where(mag == 0, 1, ip / np.where(mag == 0, 1, mag))


def _norm2(a: np.ndarray) -> float:
    return float(np.max(np.linalg.norm(a.astype(np.complex128), 2, axis=(-2, -1))))


def _cond(a: np.ndarray) -> float:
    return float(np.max(np.linalg.cond(a.astype(np.complex128))))


def _check_eig(name: str, dtype: str, a: np.ndarray, got: list, want: list) -> None:
    """The eig bounds of the module docstring; ``got`` / ``want``: ``[w]``, ``[w, vr]`` or ``[w, vl, vr]``."""
    n = a.shape[-1]
    tol = C * n * _eps(dtype) * _norm2(a)
    mats = a.reshape(-1, n, n).astype(np.complex128)
    w_got, w_want = (np.asarray(x[0]).reshape(-1, n) for x in (got, want))
    for m, wg, ww in zip(mats, w_got, w_want):
        _, yl, xr = scipy.linalg.eig(m, left=True, right=True)
        kappa = 1 / np.abs(np.sum(np.conj(yl) * xr, axis=0))  # in scipy's order: pair scipy's values first
        ws = scipy.linalg.eigvals(m)
        rows, cols = scipy.optimize.linear_sum_assignment(np.abs(ww[:, None] - ws[None, :]))
        kappa_want = np.empty(n)
        kappa_want[rows] = kappa[cols]
        rows, cols = scipy.optimize.linear_sum_assignment(np.abs(wg[:, None] - ww[None, :]))
        err = np.abs(wg[rows] - ww[cols])
        assert (err <= tol * kappa_want[cols]).all(), (name, dtype, err, tol * kappa_want[cols])
    if len(got) == 1:
        return
    w = np.asarray(got[0])
    vectors = [("right", np.asarray(got[-1]))] + ([("left", np.asarray(got[1]))] if len(got) == 3 else [])
    for side, v in vectors:
        if side == "right":
            residual = a.astype(v.dtype) @ v - v * w[..., None, :]
        else:
            residual = np.swapaxes(np.conj(v), -1, -2) @ a.astype(v.dtype) - w[..., :, None] * np.swapaxes(np.conj(v), -1, -2)
            residual = np.swapaxes(residual, -1, -2)
        assert np.max(np.linalg.norm(residual, axis=-2)) <= tol, (name, dtype, side)
        assert np.max(np.abs(np.linalg.norm(v, axis=-2) - 1)) <= C * n * _eps(dtype), (name, dtype, side)
        top = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
        assert np.max(np.abs(top.imag)) <= C * n * _eps(dtype), (name, dtype, side)


def _check_real_schur_form(t: np.ndarray) -> None:
    """``t`` ``[*b, n, n]`` is a real Schur form as LAPACK writes it: zero below the first subdiagonal, no two
    adjacent non-zero subdiagonal entries, and each 2x2 block standardised (``?lanv2``: equal diagonal
    entries, off-diagonal entries of opposite signs: a conjugate pair)."""
    n = t.shape[-1]
    assert (np.tril(t, -2) == 0).all()
    sub = np.diagonal(t, -1, -2, -1)
    assert not ((sub[..., 1:] != 0) & (sub[..., :-1] != 0)).any()
    for m in t.reshape(-1, n, n):
        for k in np.flatnonzero(np.diagonal(m, -1)):
            assert m[k, k] == m[k + 1, k + 1] and m[k, k + 1] * m[k + 1, k] < 0, m[k:k + 2, k:k + 2]


def check(name: str, dtype: str, args: list[np.ndarray], got: list, want: list) -> None:
    """Assert that the legalized results ``got`` of ``name`` equal LAPACK's ``want`` within the bounds of
    the module docstring (``args``: the inputs)."""
    name = CHECKED_AS.get(name, name)
    got = [np.asarray(g) for g in got]
    a = args[0]
    if name in ("eig", "eigvals", "eig_left", "schur", "schur_complex"):
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape, g.dtype, w.dtype)
        if name.startswith("schur"):  # (T, Z): A = Z T Z^H, Z unitary, T (quasi-)triangular; eig(T) = eig(A)
            t, z = got
            n = a.shape[-1]
            assert _rel(np.conj(np.swapaxes(z, -1, -2)) @ z, np.eye(n)) <= C * n * _eps(dtype)
            assert _rel(z @ t @ np.conj(np.swapaxes(z, -1, -2)), a) <= C * n * _eps(dtype)
            if t.dtype.kind == "c":
                assert (np.tril(t, -1) == 0).all()
            else:
                _check_real_schur_form(t)
            got, want = [np.linalg.eigvals(t)], [np.linalg.eigvals(np.asarray(want[0]))]
        _check_eig(name, dtype, a, got, [np.asarray(w) for w in want])
        return
    n = max(a.shape[-2:])
    eps = _eps(dtype)
    norm = _norm2(a)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape, g.dtype, w.dtype)
    if name in ("qr", "qr_complete"):
        k = min(a.shape[-2:])
        for g, w in zip(got, want):
            cols = g.shape[-1] if name == "qr" or g is got[1] else k  # the completion is not unique
            assert _rel(g[..., :cols], w[..., :cols]) <= C * n * eps * _cond(a), (name, dtype, _rel(g, w))
        q, r = got
        assert _rel(q[..., :, :r.shape[-2]] @ r, a) <= C * n * eps
        assert _rel(np.conj(np.swapaxes(q, -1, -2)) @ q, np.eye(q.shape[-1])) <= C * n * eps
        return
    if name in ("eigvalsh", "svdvals", "norm2"):
        assert np.max(np.abs(got[0] - want[0])) <= C * n * eps * norm, (name, dtype)
        return
    if name == "eigh":
        (gw, gv), (ww, wv) = got, want
        assert np.max(np.abs(gw - ww)) <= C * n * eps * norm
        gv = gv / _phases(gv, wv)[..., None, :]
        bound = C * n * eps * norm / _gaps(ww)
        assert (np.max(np.abs(gv - wv), axis=-2) <= bound).all(), (name, dtype)
        herm = np.tril(a) + np.conj(np.swapaxes(np.tril(a, -1), -1, -2))  # the triangle LAPACK reads
        residual = herm @ got[1] - got[1] * gw[..., None, :]
        assert np.max(np.abs(residual)) <= C * n * eps * norm
        return
    if name in ("svd", "svd_reduced"):
        (gu, gs, gvh), (wu, ws, wvh) = got, want
        k = gs.shape[-1]
        assert np.max(np.abs(gs - ws)) <= C * n * eps * norm
        # u_k and v_k share one phase where s_k > 0 (the reconstruction below checks that); align each by
        # its own, which also covers a zero singular value (its u_k and v_k are then independent).
        gu_k = gu[..., :, :k] / _phases(gu[..., :, :k], wu[..., :, :k])[..., None, :]
        vt = np.swapaxes(gvh[..., :k, :], -1, -2)
        gvh_k = gvh[..., :k, :] / _phases(vt, np.swapaxes(wvh[..., :k, :], -1, -2))[..., :, None]
        bound = C * n * eps * norm / _gaps(ws)
        assert (np.max(np.abs(gu_k - wu[..., :, :k]), axis=-2) <= bound).all(), (name, dtype)
        assert (np.max(np.abs(gvh_k - wvh[..., :k, :]), axis=-1) <= bound).all(), (name, dtype)
        for x in (gu, np.conj(np.swapaxes(gvh, -1, -2))):  # unitary (the completion too)
            assert _rel(np.conj(np.swapaxes(x, -1, -2)) @ x, np.eye(x.shape[-1])) <= C * n * eps
        assert _rel((gu[..., :, :k] * gs[..., None, :].astype(dtype)) @ gvh[..., :k, :], a) <= C * n * eps
        return
    if name in ("pinv", "lstsq"):
        assert _rel(got[0], want[0]) <= C * n * eps * _cond(a), (name, dtype, _rel(got[0], want[0]))
        return
    raise AssertionError(f"no check for {name}")


def _rotating(names, dtypes=export.DTYPES):
    """``(name, dtype)`` params: in the default run one element type per name, in turn (every type
    appears); the others under ``-m slow``. Keeps the default run to one XLA compile pair per name."""
    for i, name in enumerate(names):
        for dtype in dtypes:
            quick = dtype == dtypes[i % len(dtypes)]
            yield pytest.param(name, dtype, marks=() if quick else pytest.mark.slow)


@pytest.mark.parametrize("name, dtype", list(_rotating(FUNCTIONS)))
def test_legalized_equals_lapack_on_xla_cpu(name, dtype):
    batch = () if name == "lstsq" and dtype == "complex128" else (2, 3)
    n = 6
    text = export.lower(name, dtype, batch, n)
    assert ("gesvd_ffi" if name in CHECKED_AS else "lapack_") in text
    legal = _legalize(text)
    assert "lapack_" not in legal
    original, legalized = backend.compile(text), backend.compile(legal)
    for seed, cond in enumerate(CONDS[dtype]):
        args = export.inputs(name, dtype, batch, n, cond=cond, seed=seed)
        check(name, dtype, args, legalized(*args), original(*args))


@pytest.mark.parametrize("name, dtype", list(_rotating(["qr", "svd", "svd_reduced", "pinv", "eigh"],
                                                       ("float64", "complex64"))))
def test_singular_inputs(name, dtype):
    n = 5
    text = export.lower(name, dtype, (2,), n)
    args = export.inputs(name, dtype, (2,), n, cond=10.0, singular=True, seed=3)
    got = backend.compile(_legalize(text))(*args)
    want = backend.compile(text)(*args)
    if name == "qr":  # R has a (near) zero last diagonal entry; Q R = A still holds
        q, r = (np.asarray(x) for x in got)
        assert _rel(q @ r, args[0]) <= C * n * _eps(dtype)
        assert abs(float(np.max(np.abs(np.asarray(want[1])[..., -1, -1])))) <= C * n * _eps(dtype)
        assert float(np.max(np.abs(r[..., -1, -1]))) <= C * n * _eps(dtype)
        return
    check(name, dtype, args, got, want)


def _tall_wide_text(fn, dtype, shape):
    with jax.enable_x64(True):
        return jax.jit(fn).lower(jax.ShapeDtypeStruct(shape, dtype)).as_text()


_NON_SQUARE = {
    "qr": jnp.linalg.qr, "qr_complete": lambda a: jnp.linalg.qr(a, mode="complete"),
    "svd": jnp.linalg.svd, "svd_reduced": lambda a: jnp.linalg.svd(a, full_matrices=False),
    "svdvals": lambda a: jnp.linalg.svd(a, compute_uv=False),
    "svd_qr": export.FUNCTIONS["svd_qr"][0],
}


@pytest.mark.parametrize("name, shape", [
    pytest.param(name, shape, marks=() if (i + j) % 2 == 0 else pytest.mark.slow)
    for i, name in enumerate(_NON_SQUARE) for j, shape in enumerate([(2, 6, 4), (4, 6)])])
def test_non_square(name, shape):
    # Tall batched complex64 and wide float64: m > n and m < n (gesdd on the adjoint).
    fn = _NON_SQUARE[name]
    dtype = "complex64" if len(shape) == 3 else "float64"
    text = _tall_wide_text(fn, dtype, shape)
    legal = _legalize(text)
    assert "lapack_" not in legal
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if dtype == "complex64" else 0)
    a = a.astype(dtype)
    check(name, dtype, [a], backend.compile(legal)(a), backend.compile(text)(a))


@pytest.mark.parametrize("name", ["eigh", "svd", "svdvals"])
def test_nan_input_gives_nan_like_lapack(name):
    n = 4
    text = export.lower(name, "float32", (3,), n)
    (a,) = export.inputs(name, "float32", (3,), n)
    a[1, 1, 0] = a[1, 0, 1] = np.nan
    got = backend.compile(_legalize(text))(a)
    want = backend.compile(text)(a)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.isnan(g[1]), np.isnan(w[1]))
        assert not np.isnan(g[[0, 2]]).any()


def _rotations(*angles):
    """Block diagonal of 2x2 rotations: a real matrix whose eigenvalues are conjugate pairs on the unit circle."""
    m = np.zeros((2 * len(angles), 2 * len(angles)))
    for i, t in enumerate(angles):
        m[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]]
    return m


#: Matrices that test the QR steps' corners: (matrix, eigenvalue tolerance in units of eps ||A||_2).
_EIG_SPECIAL = {
    "cyclic_permutation": (np.eye(6)[[1, 2, 3, 4, 5, 0]], 64),  # the Wilkinson shift alone makes no progress
    "zero": (np.zeros((4, 4)), 0),
    "diagonal": (np.diag([3.0, -1.0, 2.0, 0.0, 5.0]), 0),
    "jordan": (2 * np.eye(4) + np.eye(4, k=1), None),  # defective: eigenvalues to eps^(1/4), one eigenvector
    "rotations": (_rotations(0.3, 2.0, np.pi / 2), 64),
    "1x1": (np.array([[-7.5]]), 0),
}


@pytest.mark.parametrize("case", sorted(_EIG_SPECIAL))
def test_eig_special_matrices(case):
    a, k = _EIG_SPECIAL[case]
    n = a.shape[-1]
    text = _tall_wide_text(lambda x: jax.lax.linalg.eig(x, compute_left_eigenvectors=True), "float64", a.shape)
    legal = _legalize(text)
    assert "lapack_" not in legal
    w, vl, vr = (np.asarray(x) for x in backend.compile(legal)(a))
    w_lapack = np.asarray(backend.compile(text)(a)[0])
    eps = _eps("float64")
    rows, cols = scipy.optimize.linear_sum_assignment(np.abs(w[:, None] - w_lapack[None, :]))
    err = np.max(np.abs(w[rows] - w_lapack[cols]))
    assert err <= (k * eps * max(_norm2(a), 1) if k is not None else 4 * eps ** (1 / n)), (case, err)
    tol = C * max(n, 2) * eps * max(_norm2(a), 1)
    for v, residual in ((vr, a @ vr - vr * w), (vl, np.conj(vl.T) @ a - w[:, None] * np.conj(vl.T))):
        assert np.max(np.abs(residual)) <= tol, case
        np.testing.assert_allclose(np.linalg.norm(v, axis=0), 1, atol=C * n * eps)
    if case == "zero":  # T = 0 = A: Z is the identity, every eigenvector a unit vector
        np.testing.assert_array_equal(w, 0)
        np.testing.assert_array_equal(vr, np.eye(n))


@pytest.mark.parametrize("case", sorted(_EIG_SPECIAL))
def test_real_schur_special_matrices(case):
    # gees of a real matrix: LAPACK's real Schur form (standardised 2x2 blocks for the conjugate pairs).
    a, k = _EIG_SPECIAL[case]
    n = a.shape[-1]
    text = _tall_wide_text(jax.scipy.linalg.schur, "float64", a.shape)
    legal = _legalize(text)
    assert "lapack_dgees_ffi" in text and "lapack_" not in legal
    t, z = (np.asarray(x) for x in backend.compile(legal)(a))
    eps = _eps("float64")
    _check_real_schur_form(t)
    assert np.max(np.abs(z @ t @ z.T - a)) <= C * max(n, 2) * eps * max(_norm2(a), 1)
    assert np.max(np.abs(z.T @ z - np.eye(n))) <= C * max(n, 2) * eps
    w, w_lapack = np.linalg.eigvals(t), np.linalg.eigvals(np.asarray(backend.compile(text)(a)[0]))
    rows, cols = scipy.optimize.linear_sum_assignment(np.abs(w[:, None] - w_lapack[None, :]))
    err = np.max(np.abs(w[rows] - w_lapack[cols]))
    assert err <= (k * eps * max(_norm2(a), 1) if k is not None else 4 * eps ** (1 / n)), (case, err)


def _check_real_eig_structure(a: np.ndarray, w: np.ndarray, vl: np.ndarray, vr: np.ndarray) -> None:
    """dgeev's structure for a real ``a`` ``[*b, n, n]``: real eigenvalues exactly real with exactly real
    eigenvectors, conjugate pairs (``+wi`` first) exactly conjugate, their eigenvectors too; as many real
    eigenvalues as LAPACK's."""
    n = a.shape[-1]
    want = np.linalg.eigvals(a.astype(np.float64)).reshape(-1, n)
    for k, (wb, lb, rb) in enumerate(zip(w.reshape(-1, n), vl.reshape(-1, n, n), vr.reshape(-1, n, n))):
        real = wb.imag == 0
        assert real.sum() == (want[k].imag == 0).sum(), (wb, want[k])
        assert (rb.imag[:, real] == 0).all() and (lb.imag[:, real] == 0).all()
        firsts = np.flatnonzero(wb.imag > 0)
        np.testing.assert_array_equal(wb[firsts + 1], np.conj(wb[firsts]))
        for v in (rb, lb):
            np.testing.assert_array_equal(v[:, firsts + 1], np.conj(v[:, firsts]))


@pytest.mark.parametrize("dtype", wide_slow(["float32", "float64"]))
def test_real_eig_has_lapacks_structure(dtype):
    # Real geev goes through the real Schur form, as LAPACK does: on XLA and on the interpreter.
    a = np.random.default_rng(3).standard_normal((3, 6, 6)).astype(dtype)
    text = _tall_wide_text(lambda x: jax.lax.linalg.eig(x, compute_left_eigenvectors=True), dtype, a.shape)
    legal = _legalize(text)
    assert "lapack_" not in legal
    for got in (backend.compile(legal)(a), hlokit.interpret(text, [a])):
        w, vl, vr = (np.asarray(x) for x in got)
        _check_real_eig_structure(a, w, vl, vr)
        _check_eig("eig_left", dtype, a, [w, vl, vr], [np.asarray(x) for x in backend.compile(text)(a)])


@pytest.mark.parametrize("dtype, c", wide_slow([("float64", 1e-17), ("float32", 1e-9)]))
@pytest.mark.parametrize("n", [2, 3])
def test_real_schur_keeps_subdiagonal_entries_the_eigenvalues_need(dtype, c, n):
    # [[1, 1], [c, 1]] with c below eps: negligible next to the diagonal (the classical deflation test zeroed
    # it, giving eigenvalues 1, 1), not next to the eigenvalues' distance 2 sqrt(c) (Ahues & Tisseur's test,
    # ?lahqr's, keeps it): the eigenvalues are 1 +- sqrt(c), as LAPACK's, for geev and for gees.
    a = np.eye(n)
    a[-2:, -2:] = [[1, 1], [c, 1]]
    a[0, :] = [2, 5, 1][:n] if n == 3 else a[0, :]
    a = a.astype(dtype)
    eps = _eps(dtype)
    text = _tall_wide_text(jnp.linalg.eigvals, dtype, a.shape)
    legal = _legalize(text)
    for w in (backend.compile(legal)(a)[0], hlokit.interpret(text, [a])[0]):
        w, w_lapack = np.sort_complex(np.asarray(w)), np.sort_complex(np.asarray(backend.compile(text)(a)[0]))
        assert np.max(np.abs(w - w_lapack)) <= 4 * eps, (w, w_lapack)
        assert np.sum(np.abs(w - 1) > np.sqrt(c) / 2) == n, w  # (the pair split from 1 by about sqrt(c))
    schur = _tall_wide_text(jax.scipy.linalg.schur, dtype, a.shape)
    t, z = (np.asarray(x) for x in backend.compile(_legalize(schur))(a))
    _check_real_schur_form(t)
    t_lapack = np.asarray(backend.compile(schur)(a)[0])
    got, want = np.sort(np.diagonal(t)), np.sort(np.diagonal(t_lapack))
    assert np.max(np.abs(got - want)) <= 4 * eps, (got, want)


@pytest.mark.parametrize("dtype, scale", [("float32", 1e15), ("float32", 1e-15), ("float64", 1e100), ("float64", 1e-100)])
def test_real_eig_and_schur_of_scaled_matrices(dtype, scale):
    # The double-shift step's bulge column is quadratic in H; unscaled, it overflowed (NaN for f32 entries of
    # 1e15). Compared in units of the scale with numpy's f64 eigenvalues (jaxlib's sgeev / dgeev in scipy
    # 1.17's OpenBLAS return eigenvalues off by LAPACK's own scaling factor for such matrices).
    a = (np.random.default_rng(4).standard_normal((2, 5, 5)) * scale).astype(dtype)
    unscaled = a.astype(np.float64) / scale
    w = np.asarray(backend.compile(_legalize(_tall_wide_text(jnp.linalg.eigvals, dtype, a.shape)))(a)[0])
    _check_eig("eigvals", dtype, unscaled, [w / scale], [np.linalg.eigvals(unscaled)])
    t, z = (np.asarray(x) for x in backend.compile(_legalize(_tall_wide_text(jax.scipy.linalg.schur, dtype, a.shape)))(a))
    _check_real_schur_form(t)
    assert _rel(z @ (t / scale) @ np.swapaxes(z, -1, -2), unscaled) <= C * 5 * _eps(dtype)


@pytest.mark.parametrize("scale", [1e20, 1e-20])
def test_householder_qr_of_scaled_matrices(scale):
    # Reflectors take the norm of the column divided by its largest entry (LAPACK's scaled ?nrm2): f32 entries
    # of 1e20 square to infinity and of 1e-20 to zero, yet R equals LAPACK's.
    a = (np.random.default_rng(6).standard_normal((2, 6, 4)) * scale).astype(np.float32)
    text = _tall_wide_text(jnp.linalg.qr, "float32", a.shape)
    q, r = (np.asarray(x) for x in backend.compile(_legalize(text))(a))
    r_lapack = np.asarray(backend.compile(text)(a)[1])
    assert np.isfinite(r).all()
    assert _rel(r, r_lapack) <= C * 6 * _eps("float32") * _cond(a)
    assert _rel(q @ r, a) <= C * 6 * _eps("float32")


def test_eig_nan_input_gives_nan_like_lapack():
    n = 4
    text = export.lower("eig", "float32", (3,), n)
    (a,) = export.inputs("eig", "float32", (3,), n)
    a[1, 2, 0] = np.nan
    got = backend.compile(_legalize(text))(a)
    want = backend.compile(text)(a)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        np.testing.assert_array_equal(np.isnan(g).any(axis=tuple(range(1, g.ndim))),
                                      np.isnan(w).any(axis=tuple(range(1, w.ndim))))
        assert np.isnan(g[1]).all() and not np.isnan(g[[0, 2]]).any()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["eigh", "svd", "qr", "eig"])
@pytest.mark.parametrize("dtype", export.DTYPES)
def test_larger_orders(name, dtype):
    n = 33
    text = export.lower(name, dtype, (2,), n)
    legal = _legalize(text)
    args = export.inputs(name, dtype, (2,), n, cond=100.0, seed=7)
    check(name, dtype, args, backend.compile(legal)(*args), backend.compile(text)(*args))


# -- the interpreter runs every legalized jnp.linalg program -------------------------------------------

#: Every function of examples/linalg/export.py and how its results are compared.
INTERPRETED = {name: "decomposition" for name in FUNCTIONS}
INTERPRETED.update({name: "bound" for name in ("cholesky", "cho_solve", "solve", "solve_triangular_lower", "inv",
                                               "det", "slogdet", "lu", "lu_factor", "matrix_power")})


def _interp_cases():
    # The default run: one element type per function, in turn (all four types appear); -m slow: all.
    for i, name in enumerate(INTERPRETED):
        for dtype in export.DTYPES:
            quick = dtype == export.DTYPES[i % len(export.DTYPES)]
            yield pytest.param(name, dtype, marks=() if quick else pytest.mark.slow)


@pytest.mark.parametrize("name, dtype", list(_interp_cases()))
def test_interpreter_runs_legalized_program(name, dtype):
    batch = () if name in ("lu_factor", "lstsq") else (2,)
    n = 4
    text = export.lower(name, dtype, batch, n)
    args = export.inputs(name, dtype, batch, n, cond=10.0)
    want = backend.compile(text)(*args)
    got = hlokit.interpret(text, args)  # the interpreter legalizes the LAPACK calls itself
    if INTERPRETED[name] == "decomposition":
        check(name, dtype, args, got, want)
        return
    power = 3 if name == "matrix_power" else 1
    tol = 8 * n * _eps(dtype) * _cond(args[0]) ** power
    for g, w in zip(got, want):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        if g.dtype.kind == "i":
            np.testing.assert_array_equal(g, w)
        else:
            assert _rel(g, w) <= tol, (name, dtype, _rel(g, w), tol)


@pytest.mark.parametrize("dtype, sizes", wide_slow([("float32", (3, 5, 8)), ("float64", (3, 5, 8)),
                                                    ("complex64", (3, 5, 8, 12)), ("complex128", (3, 5, 8, 12))]))
def test_eigenvalues_come_in_lapacks_order(dtype, sizes):
    # The eigenvalues of geev have no set order, but users compare with LAPACK's. Real input: with ?lahqr's shifts
    # (a double real shift at the trailing block's eigenvalue nearer its last entry; exceptional shifts counted
    # from the last deflation) they deflate in LAPACK's order for all but a few random matrices (Francis'
    # textbook shifts: 48 of 72 here, then 70) and with ?gebal's balancing first, as LAPACK's ?geev, all 72.
    # Complex input: zlahqr's steps (the lowest unreduced block only, its exceptional shifts, the start at two
    # consecutive small subdiagonal entries, the real subdiagonal, Ahues & Tisseur's deflation test) give all 48
    # in both types; steps on the whole matrix with a Givens chase gave 37 and 41.
    rng = np.random.default_rng(3)
    same = total = 0
    for n in sizes:
        a = rng.standard_normal((12, n, n))
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal((12, n, n))
        a = a.astype(dtype)
        text = _tall_wide_text(jnp.linalg.eigvals, dtype, a.shape)
        got = np.asarray(backend.compile(_legalize(text))(a)[0])
        want = np.asarray(backend.compile(text)(a)[0])
        tol = 1e-3 if dtype in ("float32", "complex64") else 1e-9
        same += sum(np.allclose(g, w, atol=tol * n) for g, w in zip(got, want))
        total += len(a)
    assert same >= total - 1, f"{same} of {total} in LAPACK's order"


def _with_isolated_eigenvalues(dtype, count: int, n: int, seed: int, kinds: int) -> np.ndarray:
    """``count`` random ``n x n`` matrices (``n >= 4``) whose zeros isolate eigenvalues (what ``?gebal``'s
    permutation finds), cycling through the first ``kinds`` of: permuted upper triangular, lower triangular,
    sparse (60 % zeros), block upper triangular with an isolated first column."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((count, n, n)) + (1j * rng.standard_normal((count, n, n)) if dtype.startswith("complex") else 0)
    for k, m in enumerate(a):
        kind, p = k % kinds, rng.permutation(n)
        if kind == 0:
            m[...] = np.triu(m)[p][:, p]
        elif kind == 1:
            m[...] = np.tril(m)
        elif kind == 2:
            m[rng.random((n, n)) < 0.6] = 0
        else:
            m[3:, :3] = 0
            m[1:, 0] = 0
    return a.astype(dtype)


def _assert_eig_like_lapack(a: np.ndarray, in_order=lambda k: False, vector_slack: float = 1) -> None:
    """``jax.lax.linalg.eig`` (left and right vectors) of ``a`` ``[b, n, n]`` on legalized XLA and on the
    interpreter against jaxlib's LAPACK: eigenvalues within ``C n eps 100`` times the largest, in LAPACK's order
    where ``in_order(k)``, else matched by assignment; eigenvectors, phase aligned, within ``C n eps 100``
    (times ``vector_slack``), except where an eigenvalue repeats (its vectors are not unique)."""
    dtype, n = a.dtype, a.shape[-1]
    text = _tall_wide_text(lambda x: jax.lax.linalg.eig(x, compute_left_eigenvectors=True), dtype, a.shape)
    want = [np.asarray(x) for x in backend.compile(text)(a)]
    tol = C * n * _eps(dtype) * 100
    for got in (backend.compile(_legalize(text))(a), hlokit.interpret(text, [a])):
        got = [np.asarray(x) for x in got]
        for k in range(len(a)):
            w = want[0][k]
            scale = np.max(np.abs(w))
            rows, cols = (np.arange(n),) * 2 if in_order(k) else \
                scipy.optimize.linear_sum_assignment(np.abs(got[0][k][:, None] - w[None, :]))
            assert np.max(np.abs(got[0][k][rows] - w[cols])) <= tol * scale, (k, got[0][k], w)
            if np.min(np.abs(w[:, None] - w[None, :]) + np.eye(n) * scale) < 1e-2 * scale:
                continue
            for g, v in zip(got[1:], want[1:]):
                g, v = g[k][:, rows], v[k][:, cols]
                phase = np.sum(np.conj(v) * g, axis=0)
                assert np.max(np.abs(g - v * (phase / np.abs(phase)))) <= tol * vector_slack, k


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
def test_eig_of_matrices_with_isolated_eigenvalues(dtype):
    # ?geev's balancing permutes first (?gebal): rows and columns that isolate an eigenvalue (triangular,
    # permuted triangular, sparse, block-triangular matrices) go to the ends, where the QR steps find them at
    # once. Without it a triangular or permuted triangular matrix gave LAPACK's eigenvalues in another order
    # (this test failed in all four types); with it those give LAPACK's order exactly, and the eigenvectors
    # (?gebak swaps their rows back) agree, on XLA and on the interpreter.
    a = _with_isolated_eigenvalues(dtype, 12, 5, 8, kinds=4)
    # triangular up to a permutation (kinds 0, 1): every eigenvalue isolated, so LAPACK's order exactly; sparse
    # and block ones keep a block for the QR steps, whose order within it is LAPACK's most often (not always)
    _assert_eig_like_lapack(a, in_order=lambda k: k % 4 < 2, vector_slack=10)


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
def test_schur_of_permuted_triangular_matrices(dtype):
    # ?gees permutes first (?gebal, JOB = 'P'): a matrix that is triangular up to a permutation is its own Schur
    # form once permuted, so T and Z are LAPACK's (Z a permutation) to rounding, not another valid Schur form
    # with the diagonal in another order (lower-triangular input did that before). XLA and the interpreter.
    n = 5
    a = _with_isolated_eigenvalues(dtype, 6, n, 9, kinds=2)
    text = _tall_wide_text(jax.scipy.linalg.schur, dtype, a.shape)
    want = [np.asarray(x) for x in backend.compile(text)(a)]
    tol = C * n * _eps(dtype) * max(1, float(np.max(np.abs(a))))
    for got in (backend.compile(_legalize(text))(a), hlokit.interpret(text, [a])):
        for g, w in zip(got, want):
            assert np.max(np.abs(np.asarray(g) - w)) <= tol


@pytest.mark.parametrize("dtype", f32_and_c128_by_default(export.DTYPES))
def test_eig_of_badly_scaled_matrices(dtype):
    # D A D^-1 with D spanning 10^-5 .. 10^5 has A's eigenvalues; unbalanced QR steps lose them to the norm of the
    # scaled matrix (relative errors up to 1e-2 in f64 before ?gebal's balancing), balanced ones keep LAPACK's
    # accuracy: eigenvalues relative to the largest, eigenvectors (phase aligned) within C n eps times a
    # slack of 100 for the condition numbers. On XLA and on the interpreter.
    rng = np.random.default_rng(5)
    n = 6
    a = rng.standard_normal((4, n, n)) + (1j * rng.standard_normal((4, n, n)) if dtype.startswith("complex") else 0)
    d = 10.0 ** rng.uniform(-5, 5, (4, 1, n))
    _assert_eig_like_lapack((a * np.swapaxes(d, -1, -2) / d).astype(dtype))
