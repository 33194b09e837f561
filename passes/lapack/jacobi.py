"""Jacobi eigen- and singular value decompositions: LAPACK ``syevd`` / ``heevd`` and ``gesdd`` / ``gesvd``.

* :func:`build_syevd` -- parallel cyclic two-sided Jacobi (Golub & Van Loan, *Matrix Computations*, 4th
  ed., §8.5, Alg. 8.5.1 with the complex phase; round-robin ordering): sweeps of
  ``N - 1`` steps each rotating ``N / 2`` disjoint pairs at once, until ``off(A)^2 <= eps^2 ||A||_F^2`` or
  :data:`MAX_SWEEPS`; eigenvalues sorted ascending with their vectors.
* :func:`build_gesdd` -- parallel one-sided (Hestenes) Jacobi on the columns (Golub & Van Loan §8.6.3),
  ``u`` re-orthonormalised and completed by the QR of :mod:`hlokit.passes.lapack.qr`; ``gesvd`` gets the
  same expansion.

Beyond :data:`SVD_BLOCK_MIN` columns / order :data:`EIGH_BLOCK_MIN` both run the one-sided **block** Jacobi
of the section "Block Jacobi" below (:func:`block_svd_tall`, :func:`block_eigh`).

LAPACK computes these by other algorithms (divide and conquer, bidiagonalisation), so vectors may differ
from LAPACK's by a sign or phase each. XLA's counterparts: ``xla/hlo/builder/lib/self_adjoint_eig.cc``
(also Jacobi) and ``svd.cc``. The numpy mirrors are in ``tests/pytest/lapack_reference.py``.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, V
from hlokit.passes.lapack.matrix import (
    HIGHEST, abs2, adjoint, any_true, conj, diagonal_of, finfo, identity_matrix, magnitude, pad_dim, real_type,
    reduce_with, slice_dim, splat, to_elem,
)
from hlokit.passes.lapack.qr import build_geqrf, build_orgqr

__all__ = ["MAX_SWEEPS", "SVD_BLOCK_MIN", "sort_columns", "orthonormal_columns", "nan_info", "EIGH_BLOCK_MIN", "jacobi_block_size", "block_eigh", "block_svd_tall",
           "build_syevd", "build_gesdd", "jacobi_svd_tall"]


#: Jacobi sweeps at most (as ``MAX_SWEEPS`` of the numpy mirror).
MAX_SWEEPS = 30


def _tournament(e: Emitter, x: V, dim: int) -> V:
    """The round-robin move along ``dim`` (``tournament`` of the numpy mirror): static
    slices and one ``concatenate``."""
    n = x.shape[dim]
    h = n // 2
    if h < 2:
        return x
    parts = [(0, 1), (h, h + 1), (1, h - 1), (h + 1, n), (h - 1, h)]
    return e.concatenate([slice_dim(e, x, dim, lo, hi) for lo, hi in parts if hi > lo], dim)



def _rotate_round(e: Emitter, h: V, v: V, c: V, s: V, r: int, half: int, shape, t: str) -> tuple[V, V]:
    """One round of the parallel Jacobi method on the pairs (p, p + half): ``h`` rotated from both sides and
    ``v`` from the right by the rotations (c, s), the entries the rotations annihilate set to exact zeros,
    then both permuted into the next round's pairs (:func:`_tournament`). Returns (h, v)."""
    h = _rotate(e, _rotate(e, h, c, s, r + 1), c, s, r)
    diff = e.iota(shape, r, "i32") - e.iota(shape, r + 1, "i32")
    pair = e.or_(e.compare("EQ", diff, e.const(half, diff), "SIGNED"),
                 e.compare("EQ", diff, e.const(-half, diff), "SIGNED"))
    h = e.select(pair, splat(e, 0, t, shape), h)
    v = _rotate(e, v, c, s, r + 1)
    return _tournament(e, _tournament(e, h, r + 1), r), _tournament(e, v, r + 1)

def _rotation(e: Emitter, app: V, aqq: V, apq: V) -> tuple[V, V]:
    """The Jacobi rotations ``(c, s)`` (both in ``apq``'s element type, ``c`` real-valued) of the
    Hermitian 2x2 blocks ``[[app, apq], [conj(apq), aqq]]`` (``_rotation`` of the numpy mirror)."""
    rt = app.t
    shape = app.shape
    eps = float(finfo(rt).eps)
    mag = magnitude(e, apq)
    small = e.compare("EQ", mag, splat(e, 0, rt, shape), "FLOAT")
    safe = e.select(small, splat(e, 1, rt, shape), mag)
    tau = (aqq - app) / (safe * 2.0)
    atau = e.abs(tau)
    big = e.compare("GT", atau, splat(e, 1 / math.sqrt(eps), rt, shape), "FLOAT")
    tb = e.select(big, splat(e, 0, rt, shape), tau)
    root = e.select(big, atau, e.sqrt(tb * tb + 1.0))
    sign = e.select(e.compare("GE", tau, splat(e, 0, rt, shape), "FLOAT"), splat(e, 1, rt, shape),
                    splat(e, -1, rt, shape))
    t = sign / (atau + root)
    c = 1.0 / e.sqrt(t * t + 1.0)
    s = to_elem(e, t * c, apq.t) * (apq / to_elem(e, safe, apq.t))
    c = e.select(small, splat(e, 1, rt, shape), c)
    s = e.select(small, splat(e, 0, apq.t, shape), s)
    return to_elem(e, c, apq.t), s


def _rotate(e: Emitter, x: V, c: V, s: V, dim: int) -> V:
    """The rotations of the pairs (k, k + h) along ``dim`` of ``x`` (``c``, ``s`` ``[*b, h]``): columns
    (``dim`` the last: ``x J``) or rows (``J^H x``); static halves and one ``concatenate``."""
    shape = x.shape
    r = len(shape) - 2
    h = shape[dim] // 2
    xt, xb = slice_dim(e, x, dim, 0, h), slice_dim(e, x, dim, h, 2 * h)
    half = list(shape)
    half[dim] = h
    cb = e.broadcast_in_dim(c, half, list(range(r)) + [dim])
    sb = e.broadcast_in_dim(s, half, list(range(r)) + [dim])
    if dim == r + 1:
        top, bottom = cb * xt - conj(e, sb) * xb, sb * xt + cb * xb
    else:
        top, bottom = cb * xt - sb * xb, conj(e, sb) * xt + cb * xb
    return e.concatenate([top, bottom], dim)


def _off2(e: Emitter, h: V) -> V:
    """Squared Frobenius norm of the off-diagonal part of ``h`` ``[*b, n, n]`` -> real ``[*b]``."""
    shape = h.shape
    r = len(shape) - 2
    eye = e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    rt = real_type(h.t)
    return e.reduce_sum(e.select(eye, splat(e, 0, rt, shape), abs2(e, h)), [r, r + 1])


def sort_columns(e: Emitter, keys: V, x: V, direction: str) -> tuple[V, V]:
    """Sort ``keys`` ``[*b, n]`` (``direction`` ``"LT"`` ascending, ``"GT"`` descending; stable) and the
    columns of ``x`` ``[*b, m, n]`` with them: one ``stablehlo.sort`` of ``x`` with the keys broadcast
    over its rows. Returns ``(sorted keys, x with permuted columns)``."""
    shape = x.shape
    r = len(shape) - 2
    kb = e.broadcast_in_dim(keys, shape, list(range(r)) + [r + 1])
    ks, xs = e.sort([kb, x], r + 1, lambda a, b, *_: e.compare(direction, a, b, "TOTALORDER"))
    return e.reshape(slice_dim(e, ks, r, 0, 1), keys.shape), xs


def nan_info(e: Emitter, x: V) -> V:
    """LAPACK's ``info`` of the values ``x`` ``[*b, k]`` (eigen- or singular values): i32 ``[*b]``, 1 where ``x``
    has a NaN (the iteration failed), else 0."""
    r = len(x.shape) - 1
    nan = e.compare("NE", x, x, "FLOAT")
    if r:
        nan = reduce_with(e, nan, r, False, "or")
    else:
        nan = e.reshape(reduce_with(e, e.reshape(nan, [x.shape[-1]]), 0, False, "or"), [])
    batch = x.shape[:r]
    return e.select(nan, splat(e, 1, "i32", batch), splat(e, 0, "i32", batch))


def build_syevd(e: Emitter, a: V, lower: bool) -> list[V]:
    """``syevd`` / ``heevd`` of ``a`` (``[*b, n, n]``, the ``lower``/upper triangle read): ``[v, w, info]``.

    The Hermitian matrix of the triangle, zero-padded to even order ``N``; an outer ``stablehlo.while``
    over sweeps (``off(A)^2 > eps^2 ||A||_F^2`` and fewer than :data:`MAX_SWEEPS`), an inner one over the
    ``N - 1`` parallel steps of a sweep: the ``N/2`` rotations of the pairs (k, k + N/2) on columns and
    rows (:func:`_rotate`), the annihilated entries set to 0, the round-robin move (:func:`_tournament`).
    Then ``w`` = the diagonal sorted ascending with ``v``'s columns; ``info`` (i32 ``[*b]``) 1 where
    ``w`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t, rt = a.t, real_type(a.t)
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    h = e.select(e.compare("GE" if lower else "LE", rows, cols, "SIGNED"), a, adjoint(e, a))
    if t in COMPLEX_TYPES:  # the diagonal of a Hermitian matrix is real (LAPACK reads its real part)
        h = e.select(e.compare("EQ", rows, cols, "SIGNED"), to_elem(e, e.real(h), t), h)
    if n > EIGH_BLOCK_MIN:
        w, v = block_eigh(e, h)
        w, v = sort_columns(e, w, v, "LT")
        return [v, w, nan_info(e, w)]
    nn = n + n % 2
    half = nn // 2
    h = pad_dim(e, pad_dim(e, h, r + 1, nn - n), r, nn - n)
    full = batch + [nn, nn]
    eps = float(finfo(rt).eps)
    tol2 = e.reduce_sum(abs2(e, h), [r, r + 1]) * (eps * eps)

    def step(i: V, h: V, v: V) -> list[V]:
        d = e.real(diagonal_of(e, h)) if t in COMPLEX_TYPES else diagonal_of(e, h)
        app, aqq = slice_dim(e, d, r, 0, half), slice_dim(e, d, r, half, nn)
        apq = diagonal_of(e, slice_dim(e, slice_dim(e, h, r, 0, half), r + 1, half, nn))
        c, s = _rotation(e, app, aqq, apq)
        h, v = _rotate_round(e, h, v, c, s, r, half, full, t)
        return [i + 1, h, v]

    def sweep(k: V, h: V, v: V, tol2: V) -> list[V]:
        out = e.while_([e.scalar(0, "i32"), h, v],
                           lambda i, *_: e.compare("LT", i, e.scalar(nn - 1, "i32"), "SIGNED"), step)
        return [k + 1, out[1], out[2], tol2]

    def more(k: V, h: V, v: V, tol2: V) -> V:
        unconverged = any_true(e, e.compare("GT", _off2(e, h), tol2, "FLOAT"))
        return e.and_(e.compare("LT", k, e.scalar(MAX_SWEEPS, "i32"), "SIGNED"), unconverged)

    out = e.while_([e.scalar(0, "i32"), h, identity_matrix(e, full, t), tol2], more, sweep)
    h, v = out[1], out[2]
    d = diagonal_of(e, h)
    w = e.real(d) if t in COMPLEX_TYPES else d
    w = slice_dim(e, w, r, 0, n)
    v = slice_dim(e, slice_dim(e, v, r, 0, n), r + 1, 0, n)
    w, v = sort_columns(e, w, v, "LT")
    return [v, w, nan_info(e, w)]


def orthonormal_columns(e: Emitter, x: V) -> V:
    """``Q diag(phase(diag R))`` of the Householder QR of ``x`` ``[*b, m, p]`` (``m >= p``): ``x`` to
    rounding where its columns are orthonormal, an orthonormal completion where a column is zero."""
    # Unblocked (one loop each): a small part of the SVD's run time, a third of its compile time if blocked.
    qr, tau = build_geqrf(e, x, block_size=max(x.shape[-2:]))
    q = build_orgqr(e, qr, tau, block_size=max(x.shape[-2:]))
    shape = x.shape
    r = len(shape) - 2
    p = shape[r + 1]
    d = diagonal_of(e, slice_dim(e, qr, r, 0, p))
    mag = magnitude(e, d)
    zero = e.compare("EQ", mag, splat(e, 0, mag.t, mag.shape), "FLOAT")
    phase = e.select(zero, splat(e, 1, x.t, d.shape),
                     d / to_elem(e, e.select(zero, splat(e, 1, mag.t, mag.shape), mag), x.t))
    return q * e.broadcast_in_dim(phase, shape, list(range(r)) + [r + 1])


def jacobi_svd_tall(e: Emitter, a: V, mode: str) -> tuple[V, V | None, V | None]:
    """One-sided Jacobi SVD of ``a`` ``[*b, m, n]`` with ``m >= n``: ``(s, u, v)`` (``u`` ``[*b, m, n]``, or
    ``[*b, m, m]`` for ``mode`` 'A'; ``v`` ``[*b, n, n]``; both None for 'N')."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    t, rt = a.t, real_type(a.t)
    nn = n + n % 2
    half = nn // 2
    eps = float(finfo(rt).eps)
    tol = math.sqrt(m) * eps
    if n > SVD_BLOCK_MIN:
        u, v = block_svd_tall(e, a)
        return _finish_svd(e, u, v, m, mode)

    def step(i: V, u: V, v: V, rot: V) -> list[V]:
        ut, ub = slice_dim(e, u, r + 1, 0, half), slice_dim(e, u, r + 1, half, nn)
        app, aqq = e.reduce_sum(abs2(e, ut), [r]), e.reduce_sum(abs2(e, ub), [r])
        apq = e.reduce_sum(conj(e, ut) * ub, [r])
        big = e.compare("GT", magnitude(e, apq), e.sqrt(app * aqq) * tol, "FLOAT")
        rot = e.or_(rot, any_true(e, big))
        c, s = _rotation(e, app, aqq, e.select(big, apq, splat(e, 0, t, apq.shape)))
        u = _tournament(e, _rotate(e, u, c, s, r + 1), r + 1)
        v = _tournament(e, _rotate(e, v, c, s, r + 1), r + 1)
        return [i + 1, u, v, rot]

    def sweep(k: V, u: V, v: V, rot: V) -> list[V]:
        out = e.while_([e.scalar(0, "i32"), u, v, e.scalar(False, "i1")],
                           lambda i, *_: e.compare("LT", i, e.scalar(nn - 1, "i32"), "SIGNED"), step)
        return [k + 1, out[1], out[2], out[3]]

    def more(k: V, u: V, v: V, rot: V) -> V:
        return e.and_(e.compare("LT", k, e.scalar(MAX_SWEEPS, "i32"), "SIGNED"), rot)

    u0 = pad_dim(e, a, r + 1, nn - n)
    out = e.while_([e.scalar(0, "i32"), u0, identity_matrix(e, batch + [nn, nn], t), e.scalar(True, "i1")],
                       more, sweep)
    u = slice_dim(e, out[1], r + 1, 0, n)
    v = slice_dim(e, slice_dim(e, out[2], r, 0, n), r + 1, 0, n)
    return _finish_svd(e, u, v, m, mode)


def _finish_svd(e: Emitter, u: V, v: V, m: int, mode: str) -> tuple[V, V | None, V | None]:
    """``(s, u, v)`` from the rotated columns ``u`` (``[*b, m, n]``, orthogonal) and ``v`` (``[*b, n, n]``):
    ``s`` the column norms sorted descending with ``u`` and ``v``, ``u`` normalised and made orthonormal
    (completed to ``[*b, m, m]`` for ``mode`` 'A'); ``u``, ``v`` None for 'N'."""
    shape = u.shape
    r = len(shape) - 2
    n = shape[r + 1]
    t, rt = u.t, real_type(u.t)
    sv = e.sqrt(e.reduce_sum(abs2(e, u), [r]))
    if mode == "N":
        return e.sort([sv], r, lambda a_, b_: e.compare("GT", a_, b_, "TOTALORDER"))[0], None, None
    sv, uv = sort_columns(e, sv, e.concatenate([u, v], r), "GT")
    u, v = slice_dim(e, uv, r, 0, m), slice_dim(e, uv, r, m, m + n)
    zero = e.compare("EQ", sv, splat(e, 0, rt, sv.shape), "FLOAT")
    scale = to_elem(e, e.select(zero, splat(e, 1, rt, sv.shape), sv), t)
    u = u / e.broadcast_in_dim(scale, u.shape, list(range(r)) + [r + 1])
    if mode == "A":
        u = pad_dim(e, u, r + 1, m - n)
    return sv, orthonormal_columns(e, u), v


def build_gesdd(e: Emitter, a: V, mode: str, result_shapes: list[list[int]], svd_tall=None) -> list[V]:
    """``gesdd`` of ``a`` (``[*b, m, n]``, ``mode`` 'A' / 'S' / 'N'): ``[a, s, u, vt, info]``.

    One-sided Jacobi (:func:`jacobi_svd_tall`; another ``svd_tall(e, x, mode) -> (s, u, v)`` of the same
    contract if given) on ``a`` (``m >= n``) or on ``a^H`` (``m < n``, ``u`` and ``vt`` swapped). ``s`` real descending; ``u``, ``vt`` per ``mode`` (for 'N' zeros of the call's result
    shapes, which JAX does not read); the first result is ``a`` (LAPACK overwrites it with workspace);
    ``info`` 1 where ``s`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    m, n = shape[r], shape[r + 1]
    tall = m >= n
    s, u, v = (svd_tall or jacobi_svd_tall)(e, a if tall else adjoint(e, a), mode)
    if mode == "N":
        u = splat(e, 0, a.t, result_shapes[2])
        vt = splat(e, 0, a.t, result_shapes[3])
    elif tall:
        vt = adjoint(e, v)
    else:
        u, vt = v, adjoint(e, u)
    return [a, s, u, vt, nan_info(e, s)]


# -- Block Jacobi --------------------------------------------------------------------------------------
#
# Block Jacobi eigen- and singular value decompositions (``syevd`` / ``heevd``, ``gesdd`` / ``gesvd`` of order
# above :data:`SVD_BLOCK_MIN` / :data:`EIGH_BLOCK_MIN`), the rotations of a step applied as batched ``dot_general``\\ s.
#
# The order ``n`` is padded to ``N = 2 k b`` (zero rows and columns never mix with the others: their
# rotations are exact identities) and cut into ``2 k`` blocks of ``b`` indices (:func:`jacobi_block_size`).
# A sweep is ``2 k - 1`` steps of the round-robin tournament over the blocks (Golub & Van Loan, *Matrix
# Computations*, 4th ed., §8.5.5 "block Jacobi procedures" and §8.6.3 for the one-sided form; Bischof, "The
# two-sided block Jacobi method on hypercube architectures", 1987; Hari & Bečka on one-sided block Jacobi
# SVD); at each step the ``k`` disjoint block pairs ``(i, i + k)`` are processed at once:
#
# * **SVD** (one-sided on the columns of ``U = A``): per pair the Gram matrix ``G_i = [U_i U_{i+k}]^H
#   [U_i U_{i+k}]`` (one batched ``dot_general``), one sweep of scalar Jacobi rotations on ``G_i`` (a pair
#   rotates only where ``|g_pq| > sqrt(m) eps sqrt(g_pp g_qq)``, the one-sided test), ``U <- U J``,
#   ``V <- V J`` (batched ``dot_general``\\ s); sweeps stop after one without a rotation.
#
# The Gram matrix is recomputed from ``U`` at every step, so a rotation decision always sees the columns'
# current inner products (the relative test of the scalar one-sided method).
#
# * **eigh**: the same one-sided method on the positive semidefinite shift ``A + ||A||_F I`` (whose right
#   singular vectors are ``A``'s eigenvectors), the eigenvalues as Rayleigh quotients (:func:`block_eigh`).
#   A two-sided block Jacobi (the ``2b x 2b`` diagonal blocks of the pairs diagonalised, ``J^H A J`` as
#   batched products) measured slower than the scalar method on XLA CPU (n = 256: 560 against 369 ms, n =
#   512: 4.0 to 7.4 s against 4.2 s, f32) and is not kept.
#
# XLA's counterpart of the scalar method: ``xla/hlo/builder/lib/self_adjoint_eig.cc``.

#: SVDs of up to this many columns (``min(m, n)``) run the scalar one-sided Jacobi of
#: :mod:`hlokit.passes.lapack.jacobi`; wider ones :func:`block_svd_tall`.
SVD_BLOCK_MIN = 64

#: eigh of up to this order runs the scalar two-sided Jacobi; larger ones :func:`block_eigh`.
EIGH_BLOCK_MIN = 64



def jacobi_block_size(n: int) -> int:
    """The block ``b`` of the block Jacobi methods for order ``n`` (a pair is ``2b x 2b``): :data:`JACOBI_BLOCK`."""
    return JACOBI_BLOCK


#: The block of :func:`jacobi_block_size` (measured: ``docs/lapack.md``).
JACOBI_BLOCK = 8


def _pair_step(e: Emitter, h: V, v: V, rel_tol: float) -> tuple[V, V, V]:
    """One step of the scalar parallel Jacobi on ``h`` (``[*B, M, M]`` Hermitian, ``M`` even): the pairs
    ``(p, p + M/2)`` rotated on both sides, ``v`` (``[*B, M, M]``) on the right, then the round-robin move.
    A pair rotates only where ``|h_pq| > rel_tol sqrt(h_pp h_qq)`` (the one-sided test).
    Returns ``(h, v, rotated)`` (``rotated`` 0-d i1: any pair rotated)."""
    shape = h.shape
    r = len(shape) - 2
    mm = shape[r]
    half = mm // 2
    t = h.t
    d = e.real(diagonal_of(e, h)) if t in COMPLEX_TYPES else diagonal_of(e, h)
    app, aqq = slice_dim(e, d, r, 0, half), slice_dim(e, d, r, half, mm)
    apq = diagonal_of(e, slice_dim(e, slice_dim(e, h, r, 0, half), r + 1, half, mm))
    big = e.compare("GT", magnitude(e, apq), e.sqrt(e.abs(app * aqq)) * rel_tol, "FLOAT")
    rotated = any_true(e, big)
    apq = e.select(big, apq, splat(e, 0, t, apq.shape))
    c, s = _rotation(e, app, aqq, apq)
    h, v = _rotate_round(e, h, v, c, s, r, half, shape, t)
    return h, v, rotated


def _rotate_columns(e: Emitter, x: V, j5: V) -> V:
    """``x J`` for ``x`` ``[*B, m, N]`` and the block-diagonal ``J`` of the pairs, ``j5`` ``[*B, k, 2, b, 2,
    b]``: one ``dot_general`` batched over the pairs (and ``*B``), contracting the pair's ``2b`` columns."""
    shape = x.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    k, b = j5.shape[r], j5.shape[r + 2]
    x4 = e.reshape(x, batch + [m, 2, k, b])
    bd = list(range(r))
    y = e.dot_general(x4, j5, bd + [r + 2], bd + [r], [r + 1, r + 3], [r + 1, r + 2], precision=HIGHEST)
    # y: [*B, k, m, 2, b]
    y = e.transpose(y, bd + [r + 1, r + 2, r, r + 3])
    return e.reshape(y, shape)


def _block_tournament(e: Emitter, x: V, dim: int, b: int) -> V:
    """The round-robin move of the blocks of ``b`` indices along ``dim`` of ``x``."""
    shape = x.shape
    nblk = shape[dim] // b
    split = shape[:dim] + [nblk, b] + shape[dim + 1:]
    return e.reshape(_tournament(e, e.reshape(x, split), dim), shape)


def block_eigh(e: Emitter, h: V, b: int | None = None) -> tuple[V, V]:
    """Eigen-decomposition of ``h`` (``[*B, n, n]`` Hermitian, both triangles set) by one-sided block
    Jacobi on the positive semidefinite shift ``B = h + sigma I``, ``sigma = ||h||_F >= ||h||_2``
    (Veselic & Hari, "A note on a one-sided Jacobi algorithm", Numer. Math. 56 (1989): for a positive
    semidefinite matrix the right singular vectors are the eigenvectors): ``B V = U S`` by
    :func:`block_svd_tall`, then ``w = diag(V^H h V)`` (the Rayleigh quotients, one ``dot_general``).
    Returns ``(w, v)``: ``w`` real ``[*B, n]`` unsorted, ``v`` ``[*B, n, n]`` unitary. The shift moves no
    gap, so vectors keep the scalar method's ``C n eps ||A||_2 / gap`` and the values ``C n eps ||A||_2``
    (``sigma <= sqrt(n) ||A||_2``)."""
    shape = h.shape
    r = len(shape) - 2
    t = h.t
    bd = list(range(r))
    sigma = e.sqrt(e.reduce_sum(abs2(e, h), [r, r + 1]))
    eye = e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    shifted = e.select(eye, h + to_elem(e, e.broadcast_in_dim(sigma, shape, bd), t), h)
    _, v = block_svd_tall(e, shifted, b)
    hv = e.dot_general(h, v, bd, bd, [r + 1], [r], precision=HIGHEST)
    w = e.reduce_sum(conj(e, v) * hv, [r])
    return (e.real(w) if t in COMPLEX_TYPES else w), v


def block_svd_tall(e: Emitter, a: V, b: int | None = None) -> tuple[V, V]:
    """One-sided block Jacobi on the columns of ``a`` (``[*B, m, n]``, ``m >= n``): ``(u, v)`` with ``u``
    (``[*B, m, n]``) = ``a V`` of mutually orthogonal columns (their norms the singular values, unsorted)
    and ``v`` (``[*B, n, n]``) unitary. See the "Block Jacobi" section comment."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    t, rt = a.t, real_type(a.t)
    b = b or jacobi_block_size(n)
    k = -(-n // (2 * b))
    nn = 2 * k * b
    eps = float(finfo(rt).eps)
    tol = math.sqrt(m) * eps
    bd = list(range(r))
    u0 = e.pad(a, e.scalar(0, t), [0] * (r + 2), [0] * r + [0, nn - n]) if nn > n else a

    def step(i: V, u: V, v: V, rot: V) -> list[V]:
        u4 = e.reshape(u, batch + [m, 2, k, b])
        g = e.dot_general(conj(e, u4), u4, bd + [r + 2], bd + [r + 2], [r], [r], precision=HIGHEST)
        g = e.reshape(g, batch + [k, 2 * b, 2 * b])
        _, j = _inner_rel(e, g, tol)
        rot = e.or_(rot, j[1])
        j5 = e.reshape(j[0], batch + [k, 2, b, 2, b])
        u = _block_tournament(e, _rotate_columns(e, u, j5), r + 1, b)
        v = _block_tournament(e, _rotate_columns(e, v, j5), r + 1, b)
        return [i + 1, u, v, rot]

    def sweep(c: V, u: V, v: V, rot: V) -> list[V]:
        out = e.while_([e.scalar(0, "i32"), u, v, e.scalar(False, "i1")],
                       lambda i, *_: e.compare("LT", i, e.scalar(2 * k - 1, "i32"), "SIGNED"), step)
        return [c + 1, out[1], out[2], out[3]]

    def more(c: V, u: V, v: V, rot: V) -> V:
        return e.and_(e.compare("LT", c, e.scalar(MAX_SWEEPS, "i32"), "SIGNED"), rot)

    out = e.while_([e.scalar(0, "i32"), u0, identity_matrix(e, batch + [nn, nn], t), e.scalar(True, "i1")],
                   more, sweep)
    u = slice_dim(e, out[1], r + 1, 0, n)
    v = slice_dim(e, slice_dim(e, out[2], r, 0, n), r + 1, 0, n)
    return u, v


def _inner_rel(e: Emitter, g: V, rel_tol: float) -> tuple[V, tuple[V, V]]:
    """One sweep of scalar Jacobi rotations on the Gram matrices ``g`` (``[*B, M, M]``) with the one-sided
    test: ``(g', (J, rotated))``."""
    shape = g.shape
    r = len(shape) - 2
    mm = shape[r]
    out = e.while_([e.scalar(0, "i32"), g, identity_matrix(e, shape, g.t), e.scalar(False, "i1")],
                   lambda i, *_: e.compare("LT", i, e.scalar(mm - 1, "i32"), "SIGNED"),
                   lambda i, hh, vv, rot: [i + 1, *_step_rot(e, hh, vv, rot, rel_tol)])
    return out[1], (out[2], out[3])


def _step_rot(e: Emitter, h: V, v: V, rot: V, rel_tol: float) -> list[V]:
    h, v, rotated = _pair_step(e, h, v, rel_tol)
    return [h, v, e.or_(rot, rotated)]
