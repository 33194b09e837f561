"""Eigenvalues and eigenvectors of a general matrix: LAPACK ``geev``.

As ``?geev``: the matrix is balanced (:mod:`hlokit.passes.lapack.balance`), brought to Schur form (complex:
:mod:`hlokit.passes.lapack.schur`; real: :mod:`hlokit.passes.lapack.real_schur`, then made complex by the
block-diagonal unitary of ``scipy.linalg.rsf2csf``'s reduction), and the eigenvectors are found by
``?trevc``'s back substitution on the triangular factor, transformed back and normalised as LAPACK's (norm 1,
largest component real). :func:`build_geev` (complex input) and :func:`build_geev_real` (real input, with
LAPACK's real / conjugate-pair structure). The eigenvalue order is that of the Schur form's diagonal.
Sources: LAPACK's ``zgeev``, ``dgeev`` and ``ztrevc`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §7.6.
"""

from __future__ import annotations

from typing import Sequence

from hlokit.passes.builder import V, Emitter
from hlokit.passes.lapack.balance import gebak, gebal
from hlokit.passes.lapack.matrix import (
    HIGHEST, abs2, adjoint, conj, diagonal_of, entry_at, finfo, hypot, identity_matrix, magnitude, real_type,
    reduce_with, reverse, row_of, shift_down, splat, superdiagonal_of, to_elem,
)
from hlokit.passes.lapack.real_schur import real_schur
from hlokit.passes.lapack.schur import complex_schur

__all__ = ["build_geev", "build_geev_real"]


def _triangular_eigenvectors(e: Emitter, t: V) -> V:
    """The eigenvectors of an upper triangular ``t`` ``[*b, n, n]`` as columns: ``x_k[k] = 1``, zero below
    ``k``, and back substitution ``x_k[i] = -(t[i, i+1:] . x_k[i+1:]) / (t[i, i] - t[k, k])`` for
    ``i = k-1 .. 0`` (``?trevc``), every ``k`` at once: a ``stablehlo.while`` over ``i = n-2 .. 0``. A
    denominator smaller than ``smin = max(eps max|t|, tiny)`` becomes ``smin`` (``?trevc``'s
    perturbation for repeated eigenvalues)."""
    shape = t.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    ct = t.t
    rt = real_type(ct)
    fin = finfo(rt)
    bd = list(range(r))
    w = diagonal_of(e, t)
    tmax = reduce_with(e, magnitude(e, t), [r, r + 1], 0.0, "maximum")
    smin = e.maximum(tmax * float(fin.eps), splat(e, float(fin.tiny), rt, batch))
    sminb = e.broadcast_in_dim(smin, batch + [n], bd)
    idx = e.iota(batch + [n], r, "i32")
    zero = e.scalar(0, "i32")

    def body(i: V, x: V) -> list[V]:
        row = row_of(e, t, i)
        after = e.compare("GT", idx, e.broadcast_in_dim(i, batch + [n], []), "SIGNED")
        row = e.select(after, row, splat(e, 0, ct, batch + [n]))
        s = e.dot_general(row, x, bd, bd, [r], [r], precision=HIGHEST)  # [*b, n]: sum_j t[i, j] x[j, k] over j > i
        d = e.broadcast_in_dim(entry_at(e, w, i), batch + [n], bd) - w
        d = e.select(e.compare("LT", magnitude(e, d), sminb, "FLOAT"), to_elem(e, sminb, ct), d)
        old = row_of(e, x, i)
        new = e.select(after, -s / d, old)
        return [i - 1, e.dynamic_update_slice(x, e.reshape(new, batch + [1, n]), [zero] * r + [i, zero])]

    out = e.while_([e.scalar(n - 2, "i32"), identity_matrix(e, shape, ct)],
                       lambda i, *_: e.compare("GE", i, zero, "SIGNED"), body)
    return out[1]


def _normalize_columns(e: Emitter, v: V) -> V:
    """Each column of ``v`` ``[*b, n, n]`` scaled to Euclidean norm 1 and rotated so that its first
    largest-magnitude entry is real and positive (``?geev``: "norm 1 and largest component real")."""
    shape = v.shape
    r = len(shape) - 2
    bd = list(range(r))
    ct = v.t
    rt = real_type(ct)
    norm = e.sqrt(e.reduce_sum(abs2(e, v), [r]))  # [*b, n]
    v = v / to_elem(e, e.broadcast_in_dim(norm, shape, bd + [r + 1]), ct)
    mag = magnitude(e, v)
    top = reduce_with(e, mag, r, 0.0, "maximum")
    rows = e.iota(shape, r, "i32")
    n = shape[r]
    first = reduce_with(e, e.select(e.compare("EQ", mag, e.broadcast_in_dim(top, shape, bd + [r + 1]), "FLOAT"), rows,
                                splat(e, n, "i32", shape)), r, n, "minimum")
    at = e.compare("EQ", rows, e.broadcast_in_dim(first, shape, bd + [r + 1]), "SIGNED")
    p = e.reduce_sum(e.select(at, v, splat(e, 0, ct, shape)), [r])
    ap = magnitude(e, p)
    none = e.compare("EQ", ap, splat(e, 0, rt, ap.shape), "FLOAT")
    phase = e.select(none, splat(e, 1, ct, p.shape), conj(e, p) / to_elem(e, e.select(
        none, splat(e, 1, rt, ap.shape), ap), ct))
    return v * e.broadcast_in_dim(phase, shape, bd + [r + 1])


def _schur_vectors(e: Emitter, t: V, z: V, left: bool, right: bool,
                       balance: Sequence[V] | None = None) -> tuple[V, V]:
    """``(vl, vr)`` of the complex Schur form ``A = Z T Z^H`` (``t``, ``z`` ``[*b, n, n]``): right eigenvectors
    ``Z X`` with ``X`` those of ``T`` (:func:`_triangular_eigenvectors`), left ones ``Z Y`` with ``Y`` those
    of ``T^H`` (lower triangular: the same routine on ``T^H`` with rows and columns reversed); with ``balance``
    (``(d, piv, ilo, ihi)`` of :func:`gebal`: ``Z T Z^H = D^-1 P^T A P D``) those of ``A``
    (:func:`gebak`); each column normalised (:func:`_normalize_columns`); zeros where not ``left`` / ``right``."""
    shape = t.shape
    r = len(shape) - 2
    bd = list(range(r))
    vr = vl = splat(e, 0, t.t, shape)

    def back(v: V, inverse: bool) -> V:
        return v if balance is None else gebak(e, v, *balance, left=inverse)

    if right:
        x = e.dot_general(z, _triangular_eigenvectors(e, t), bd, bd, [r + 1], [r],
                          precision=HIGHEST)
        vr = _normalize_columns(e, back(x, False))
    if left:
        flipped = reverse(e, adjoint(e, t), [r, r + 1])
        y = reverse(e, _triangular_eigenvectors(e, flipped), [r, r + 1])
        vl = _normalize_columns(e, back(e.dot_general(z, y, bd, bd, [r + 1], [r], precision=HIGHEST), True))
    return vl, vr


def build_geev(e: Emitter, a: V, left: bool, right: bool) -> list[V]:
    """``cgeev`` / ``zgeev`` of a complex ``a`` (``[*b, n, n]``; real ``a``: :func:`build_geev_real`):
    ``[w, vl, vr, info]`` as jaxlib's kernels return them: eigenvalues, left eigenvectors
    ``u_k^H A = w_k u_k^H`` and right ones ``A v_k = w_k v_k`` as columns (zeros where not asked for: ``left``
    / ``right``), each of norm 1 with its largest entry real, ``info`` 0 (1 where the QR steps did not
    converge or the input has a NaN).

    As ``?geev``: ``A`` balanced first (:func:`gebal`, ``D^-1 P^T A P D``: exact; the permutation isolates
    the eigenvalues a zero pattern exposes, in LAPACK's places, and the scaling keeps the eigenvalues of a badly
    scaled matrix as accurate as LAPACK's); the complex Schur form ``D^-1 P^T A P D = Z T Z^H``
    (:func:`complex_schur`); the eigenvalues ``diag(T)``, the eigenvectors of :func:`_schur_vectors`. The
    eigenvalues come in the order of ``T``'s diagonal: ``zlahqr``'s steps give LAPACK's (all random matrices
    tested), which rounding could still change where an eigenvalue deflates one step earlier or later.
    """
    b, *balance = gebal(e, a)
    tmat, z, info = complex_schur(e, b)
    return [diagonal_of(e, tmat), *_schur_vectors(e, tmat, z, left, right, balance), info]


def _complex_schur_of_real(e: Emitter, t: V, z: V, wr: V, wi: V) -> tuple[V, V]:
    """The complex Schur form ``(T_c, Z_c)`` of a real one (``t``, ``z`` of :func:`real_schur`, ``[*b, n, n]``;
    ``wr``, ``wi`` its eigenvalues): ``T_c = U^H T U``, ``Z_c = Z U`` with ``U`` unitary and block diagonal,
    one 2x2 block per standardised block ``[[p, b], [c, p]]`` of ``T`` (``b c < 0``, eigenvalues ``p +- i s``,
    ``s = sqrt(-b c)``): its columns ``[b, i s] / m`` (the eigenvector of ``p + i s``) and ``[i s, b] / m``,
    ``m = |(b, s)|`` (``scipy.linalg.rsf2csf``'s reduction, every block at once). ``T_c``'s diagonal is set to
    ``wr + i wi`` exactly and its lower triangle to zeros (they are those to rounding)."""
    shape = t.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    ct = f"complex<{t.t}>"
    bd = list(range(r))
    vec = batch + [n]
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    zero = splat(e, 0, t.t, vec)
    sup = superdiagonal_of(e, t)
    start = e.compare("GT", wi, zero, "FLOAT")  # [*b, n]: the first row of a 2x2 block
    second = e.compare("LT", wi, zero, "FLOAT")
    b = e.select(start, sup, zero)
    s = e.select(start, wi, zero)
    m = e.select(start, hypot(e, b, s), splat(e, 1, t.t, vec))
    diag_start = b / m  # U[k, k] = U[k+1, k+1] = b / m, U[k, k+1] = U[k+1, k] = i s / m for a block at k
    off = s / m
    prev = shift_down(e, diag_start)
    diag = e.select(start, diag_start, e.select(second, prev, splat(e, 1, t.t, vec)))

    def by_row(v: V) -> V:
        return e.broadcast_in_dim(v, shape, bd + [r])

    def by_col(v: V) -> V:
        return e.broadcast_in_dim(v, shape, bd + [r + 1])

    zeros = splat(e, 0, t.t, shape)
    above = e.and_(e.compare("EQ", cols, rows + 1, "SIGNED"), by_row(start))  # (k, k+1) of a block at k
    below = e.and_(e.compare("EQ", rows, cols + 1, "SIGNED"), by_col(start))  # (k+1, k)
    u_re = e.select(e.compare("EQ", rows, cols, "SIGNED"), by_col(diag), zeros)
    u_im = e.select(above, by_row(off), e.select(below, by_col(off), zeros))
    u = e.complex(u_re, u_im)
    tc = to_elem(e, t, ct)
    tc = e.dot_general(adjoint(e, u), e.dot_general(tc, u, bd, bd, [r + 1], [r], precision=HIGHEST), bd, bd,
                       [r + 1], [r], precision=HIGHEST)
    w = e.complex(wr, wi)
    tc = e.select(e.compare("EQ", rows, cols, "SIGNED"), by_col(w),
                  e.select(e.compare("GT", rows, cols, "SIGNED"), splat(e, 0, ct, shape), tc))
    zc = e.dot_general(to_elem(e, z, ct), u, bd, bd, [r + 1], [r], precision=HIGHEST)
    return tc, zc


def _real_input_vectors(e: Emitter, v: V, wi: V) -> V:
    """Eigenvectors ``v`` ``[*b, n, n]`` (columns, normalised) of a real matrix given LAPACK's structure: the
    column of a real eigenvalue (``wi = 0``) real (its imaginary part, rounding, set to zeros), the second
    column of a conjugate pair (``wi < 0``) the conjugate of the first."""
    shape = v.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    rt = real_type(v.t)
    zero = splat(e, 0, rt, batch + [n])
    real_col = e.broadcast_in_dim(e.compare("EQ", wi, zero, "FLOAT"), shape, bd + [r + 1])
    second = e.broadcast_in_dim(e.compare("LT", wi, zero, "FLOAT"), shape, bd + [r + 1])
    prev = shift_down(e, v)
    v = e.select(real_col, e.complex(e.real(v), splat(e, 0, rt, shape)), v)
    return e.select(second, conj(e, prev), v)


def build_geev_real(e: Emitter, a: V, left: bool, right: bool) -> list[V]:
    """``sgeev`` / ``dgeev`` of a real ``a`` (``[*b, n, n]``): ``[wr, wi, vl, vr, info]`` as jaxlib returns them
    (``vl`` / ``vr`` complex columns, zeros where not asked for).

    As LAPACK: the real Schur form (:func:`real_schur`: Francis double-shift QR steps), so the eigenvalues
    are ``wr +- i wi`` with real ones exactly real and conjugate pairs exactly conjugate (``+wi`` first);
    eigenvectors of the complex Schur form it gives (:func:`_complex_schur_of_real`) by
    :func:`_schur_vectors`, then real for a real eigenvalue and the conjugate of the first for the second of a
    pair (:func:`_real_input_vectors`). ``A`` is balanced first (:func:`gebal`: permuted and scaled, as
    ``?geev``): the order of the eigenvalues is that of ``T``'s diagonal, which is LAPACK's for most matrices."""
    b, *balance = gebal(e, a)
    t, z, wr, wi, info = real_schur(e, b)
    vl = vr = splat(e, 0, f"complex<{a.t}>", a.shape)
    if left or right:
        vl, vr = _schur_vectors(e, *_complex_schur_of_real(e, t, z, wr, wi), left, right, balance)
        vl, vr = _real_input_vectors(e, vl, wi), _real_input_vectors(e, vr, wi)
    return [wr, wi, vl, vr, info]
