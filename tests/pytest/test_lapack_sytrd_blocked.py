"""The blocked tridiagonal reduction (``?sytrd`` / ``?hetrd`` with ``?latrd`` panels) and its
back-transformation (``?ormtr`` / ``?orgtr``) of ``hlokit.passes.lapack.tridiagonal_blocked``, run on XLA CPU
with block sizes shrunk so that several blocks, several window loops and a partial last block run: ``Q^H A Q =
T``, ``Q`` orthonormal, the same reflectors, ``d``, ``e``, ``tau`` as the unblocked ``?sytd2`` loop and as
LAPACK (scipy), ``apply_sytrd_q`` equal to ``Q @ c``."""

from __future__ import annotations

import numpy as np
import pytest

import hlokit
from hlokit.backend import compile as xla_compile
from hlokit.passes.builder import Emitter
from hlokit.passes.lapack import tridiagonal as td
from hlokit.passes.lapack import tridiagonal_blocked as tb
from sweeps import wide_slow

_TYPES = {"float32": "f32", "float64": "f64", "complex64": "complex<f32>", "complex128": "complex<f64>"}


def _run(fn, *xs):
    """``fn(e, *args)`` (a list of values) written on an Emitter, compiled by XLA CPU, run on ``xs``."""
    e = Emitter()
    args = e.args([(list(x.shape), _TYPES[str(x.dtype)]) for x in xs])
    text = e.text("main", args, fn(e, *args)).replace("func.func private @main", "func.func @main")
    return [np.asarray(o) for o in xla_compile(hlokit.parse(text, context=hlokit.make_context()))(*xs)]


def _hermitian(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return (0.5 * (a + np.conj(np.swapaxes(a, -1, -2)))).astype(dtype)


def _reflectors_q(packed: np.ndarray, tau: np.ndarray, lower: bool) -> np.ndarray:
    """``Q`` from LAPACK's storage of ``?sytrd`` (one matrix), product of the reflectors in numpy."""
    n = packed.shape[-1]
    q = np.eye(n, dtype=np.complex128)
    for i in range(n - 1):
        v = np.zeros(n, np.complex128)
        if lower:
            v[i + 1], v[i + 2:] = 1, packed[i + 2:, i]
            q = q @ (np.eye(n) - tau[i] * np.outer(v, np.conj(v)))
        else:
            v[i], v[:i] = 1, packed[:i, i + 1]
            q = (np.eye(n) - tau[i] * np.outer(v, np.conj(v))) @ q
    return q


def _tridiagonal(d, e):
    return np.diag(d) + np.diag(e, -1) + np.diag(e, 1)


@pytest.fixture
def small_blocks(monkeypatch):
    """Blocks of 8 in 3 window loops from order 5 on; ``apply_sytrd_q`` in blocks of 5, 2 loops."""
    monkeypatch.setattr(tb, "SYTRD_UNBLOCKED", 4)
    monkeypatch.setattr(tb, "SYTRD_BLOCK", 8)
    monkeypatch.setattr(tb, "SYTRD_SEGMENTS", 3)
    monkeypatch.setattr(tb, "ORMTR_BLOCK", 5)
    monkeypatch.setattr(tb, "ORMTR_SEGMENTS", 2)


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("dtype", wide_slow(sorted(_TYPES)))
def test_blocked_sytrd_is_the_unblocked_reduction(small_blocks, dtype, lower, monkeypatch):
    n = 29 if lower == (np.dtype(dtype).kind == "f") else 30  # (odd and even orders over the cases)
    a = _hermitian((n, n), dtype, seed=n)
    a = a + np.triu(np.full((n, n), 7.0, dtype), 1)  # (garbage in the triangle that is not read)
    if not lower:
        a = a.T.copy()
    c = np.random.default_rng(1).standard_normal((n, 7)).astype(dtype)
    got = _run(lambda e, x, c_: (lambda out: [*out, td.build_orgtr(e, out[0], out[3], lower),
                                              td.apply_sytrd_q(e, out[0], out[3], c_, lower)])(
        td.build_sytrd(e, x, lower)), a, c)
    monkeypatch.setattr(tb, "SYTRD_UNBLOCKED", 10 ** 6)
    want = _run(lambda e, x: td.build_sytrd(e, x, lower), a)
    packed, d, ev, tau, info, q, qc = got
    eps = np.finfo(a.dtype).eps
    full = np.tril(a) + np.conj(np.tril(a, -1)).T if lower else np.triu(a) + np.conj(np.triu(a, 1)).T
    full = full - 1j * np.diag(np.diag(full).imag) if np.iscomplexobj(full) else full
    norm = np.linalg.norm(full, 2)
    tol = 16 * n * eps * norm
    # the outputs' types, the triangle that is not read kept, info 0
    for g, w in zip(got[:5], want):
        assert g.shape == w.shape and g.dtype == w.dtype
    other = np.triu(np.ones((n, n), bool), 1) if lower else np.tril(np.ones((n, n), bool), -1)
    assert np.array_equal(packed[other], a[other]) and not info.any()
    # Q^H A Q = T and Q orthonormal
    assert np.max(np.abs(np.conj(q.T) @ q - np.eye(n))) <= 4 * n * eps
    assert np.max(np.abs(np.conj(q.T) @ full @ q - _tridiagonal(d, ev))) <= tol
    assert np.max(np.abs(q - _reflectors_q(packed, tau, lower))) <= 4 * n * eps
    assert np.max(np.abs(qc - q @ c)) <= 4 * n * eps * np.max(np.abs(c)) * np.sqrt(n)
    # the same reflectors, d, e and tau as the unblocked loop (forward errors: a few n eps ||A||)
    for name, g, w in zip(["packed", "d", "e", "tau"], got[:4], want[:4]):
        assert np.max(np.abs(g - w)) <= 4 * tol, (name, np.max(np.abs(g - w)) / (n * eps * norm))
    assert np.allclose(np.linalg.eigvalsh(_tridiagonal(d, ev)), np.linalg.eigvalsh(full), rtol=0, atol=tol)


def test_batched_blocked_sytrd_and_apply(small_blocks):
    n = 21
    a = _hermitian((2, 3, n, n), "complex64", seed=5)
    c = np.random.default_rng(2).standard_normal((2, 3, n, 4)).astype("float32")

    def program(e, x, c_):
        packed, tau, d, off = td.sytrd_for_eigh(e, x)
        return [packed, tau, d, off, td.apply_sytrd_q(e, packed, tau, c_, True)]

    packed, tau, d, off, qc = _run(program, a, c)
    assert d.dtype == off.dtype == np.float32 and d.shape == (2, 3, n) and off.shape == (2, 3, n - 1)
    assert packed.dtype == tau.dtype == np.complex64 and qc.dtype == np.complex64
    eps = np.finfo(np.float32).eps
    for i in np.ndindex(2, 3):
        q = _reflectors_q(packed[i], tau[i], True)
        norm = np.linalg.norm(a[i], 2)
        assert np.max(np.abs(np.conj(q.T) @ a[i] @ q - _tridiagonal(d[i], off[i]))) <= 16 * n * eps * norm
        assert np.max(np.abs(qc[i] - q @ c[i])) <= 16 * n * eps * np.max(np.abs(c[i]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_blocked_sytrd_equals_lapack(dtype):
    # the default block sizes (one panel of 32, then a partial one); LAPACK's ?sytrd is blocked here too
    scipy_lapack = pytest.importorskip("scipy.linalg.lapack")
    n = 53
    a = _hermitian((n, n), dtype, seed=11)
    routine = {"float32": scipy_lapack.ssytrd, "float64": scipy_lapack.dsytrd,
               "complex128": scipy_lapack.zhetrd}[dtype]
    lapack = routine(a, lower=1)
    assert n > tb.SYTRD_UNBLOCKED
    got = _run(lambda e, x: td.build_sytrd(e, x, True), a)
    eps = np.finfo(a.dtype).eps
    tol = 64 * n * eps * np.linalg.norm(a, 2)
    low = np.tril(np.ones((n, n), bool))
    for name, g, w in zip(["packed", "d", "e", "tau"], got[:4], (np.where(low, lapack[0], a), *lapack[1:4])):
        assert g.dtype == w.dtype and np.max(np.abs(g - w)) <= tol, (name, np.max(np.abs(g - w)) / tol)
    # the first panel's reflectors are well conditioned: near LAPACK's to a few eps
    assert np.max(np.abs(got[0][:, :8] - lapack[0][:, :8])[low[:, :8]]) <= 8 * n * eps * np.linalg.norm(a, 2)


def test_trailing_update_leaves_out_the_first_block_of_its_window():
    # order 64 in blocks of 8, two window loops (orders 64 and 32): each rank-16 update is a product of
    # order 56 / 24 (the window less its first block), none of the window's whole order
    import re

    e = Emitter()
    (a,) = e.args([((64, 64), "f32")])
    text = e.text("main", [a], tb.sytrd_lower_blocked(e, a, block_size=8, segments=2))
    squares = set()
    for line in text.splitlines():
        if "stablehlo.dot_general" in line:
            m = re.search(r"-> tensor<(\d+)x(\d+)xf32>", line)
            if m and m.group(1) == m.group(2):
                squares.add(int(m.group(1)))
    assert squares == {56, 24}


def test_orders_below_two_and_empty_batches():
    for shape in [(1, 1), (0, 0), (0, 5, 5)]:
        a = np.ones(shape, np.float32)
        c = np.ones(shape[:-1] + (3,), np.float32)
        out = _run(lambda e, x, c_: [td.apply_sytrd_q(e, x, td.build_sytrd(e, x, True)[3], c_, True)], a, c)
        assert np.array_equal(out[0], c)
