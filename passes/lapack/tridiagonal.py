"""Tridiagonal matrices: LAPACK ``sytrd`` / ``hetrd`` (reduction) and ``gtsv`` (solve).

* :func:`build_sytrd` -- Householder reduction of a symmetric / Hermitian matrix to tridiagonal form
  (unblocked ``?sytd2`` / ``?hetd2``: ``y = tau A v``, ``w = y - (tau / 2) (y^H v) v`` and the rank-2
  update), the same reflectors and ``tau`` as LAPACK (``jax.lax.linalg.tridiagonal``); the upper triangle
  is the lower one's loop on the matrix with rows and columns reversed; beyond a size the blocked
  ``?sytrd`` of :mod:`.tridiagonal_blocked`.
* :func:`sytrd_for_eigh` -- the lower reduction with ``tau``, ``d`` and ``off`` for an eigensolver;
  :func:`apply_sytrd_q` (``?ormtr``) and :func:`build_orgtr` (``?orgtr``) from :mod:`.tridiagonal_blocked`.
* :func:`build_gtsv` -- a tridiagonal system by Gaussian elimination with LAPACK ``?gtsv``'s partial
  pivoting and back substitution (``jax.lax.linalg.tridiagonal_solve``): the same row swaps, factors and
  ``info``.

Sources: LAPACK's ``dsytd2`` / ``zhetd2`` and ``dgtsv`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §8.3.1 and §4.3.6; XLA's ``xla/hlo/builder/lib/tridiagonal.cc``.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack import tridiagonal_blocked as blocked
from hlokit.passes.lapack.householder import householder, store_reflector
from hlokit.passes.lapack.matrix import (
    HIGHEST, column_of, conj, diagonal_of, entry_at, real_type, reverse, splat, to_elem, with_column, with_entry,
)
from hlokit.passes.lapack.tridiagonal_blocked import apply_sytrd_q, build_orgtr, hermitian_from_lower

__all__ = ["build_sytrd", "build_gtsv", "sytrd_for_eigh", "apply_sytrd_q", "build_orgtr"]


def _sytrd_lower(e: Emitter, a: V) -> list[V]:
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    rt = real_type(a.t)
    bd = list(range(r))
    zero_i = e.scalar(0, "i32")
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    lower = e.compare("GE", rows, cols, "SIGNED")
    if a.t in COMPLEX_TYPES:  # LAPACK ?hetd2 makes the diagonal real first
        a = e.select(e.compare("EQ", rows, cols, "SIGNED"), to_elem(e, e.real(a), a.t), a)

    def body(k: V, x: V, ev: V, tau: V) -> list[V]:
        col = column_of(e, x, k)
        v, t, beta = householder(e, col, k + e.scalar(1, "i32"))
        full = hermitian_from_lower(e, x)
        # y = t A v on the trailing block (v is zero up to k); w = y - (t / 2) (y^H v) v; A -= v w^H + w v^H
        y = e.broadcast_in_dim(t, batch + [n], bd) * e.dot_general(full, v, bd, bd, [r + 1], [r], precision=HIGHEST)
        trailing_rows = e.compare("GT", e.iota(batch + [n], r, "i32"), e.broadcast_in_dim(k, batch + [n], []), "SIGNED")
        y = e.select(trailing_rows, y, splat(e, 0, a.t, batch + [n]))
        yv = e.reduce_sum(conj(e, y) * v, [r])
        alpha = splat(e, -0.5, a.t, batch) * t * yv
        w = y + e.broadcast_in_dim(alpha, batch + [n], bd) * v

        def outer(p: V, q: V) -> V:
            return e.broadcast_in_dim(p, shape, bd + [r]) * e.broadcast_in_dim(conj(e, q), shape, bd + [r + 1])

        updated = full - outer(v, w) - outer(w, v)
        kk = e.broadcast_in_dim(k, shape, [])
        block = e.and_(lower, e.and_(e.compare("GT", rows, kk, "SIGNED"), e.compare("GT", cols, kk, "SIGNED")))
        x = e.select(block, updated, x)
        if a.t in COMPLEX_TYPES:  # (her2 and LAPACK's tau = 0 branch: the trailing diagonal stays real)
            x = e.select(e.compare("EQ", rows, cols, "SIGNED"), to_elem(e, e.real(x), a.t), x)
        x = with_column(e, x, k, store_reflector(e, col, k + e.scalar(1, "i32"), v, beta))
        ev = with_entry(e, ev, k, e.real(beta) if a.t in COMPLEX_TYPES else beta)
        tau = with_entry(e, tau, k, t)
        return [k + 1, x, ev, tau]

    init = [zero_i, a, splat(e, 0, rt, batch + [n - 1]), splat(e, 0, a.t, batch + [n - 1])]
    _, x, ev, tau = e.while_(init, lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                                 lambda k, x, ev, tau: body(k, x, ev, tau))
    diag = diagonal_of(e, x)
    d = e.real(diag) if a.t in COMPLEX_TYPES else diag
    return [x, d, ev, tau]


def build_sytrd(e: Emitter, a: V, lower: bool) -> list[V]:
    """``sytrd`` / ``hetrd`` of ``a`` (``[*b, n, n]``; only the ``lower`` or upper triangle is read):
    ``[a', d, e, tau, info]`` as LAPACK returns them: ``Q^H A Q = T`` tridiagonal with diagonal ``d``
    (real, ``[*b, n]``) and off-diagonal ``e`` (real, ``[*b, n - 1]``); ``a'`` holds ``d``, ``e`` and the
    Householder vectors of ``Q`` in the triangle that was read (the other triangle is the input's);
    ``tau`` ``[*b, n - 1]``; ``info`` 0.

    Beyond order :data:`~hlokit.passes.lapack.tridiagonal_blocked.SYTRD_UNBLOCKED` the blocked ``?sytrd`` /
    ``?hetrd`` (:func:`~hlokit.passes.lapack.tridiagonal_blocked.sytrd_lower_blocked`: ``?latrd`` panels and
    rank-``2 nb`` updates as ``dot_general`` ops; the same reflectors to rounding). Up to it, ``lower``: a
    ``stablehlo.while`` over ``k < n - 1`` (unblocked ``?sytd2`` / ``?hetd2``): the reflector
    of ``a[k+1:, k]`` (:func:`householder`), ``y = tau A v``, ``w = y - (tau / 2) (y^H v) v`` and the
    rank-2 update ``A - v w^H - w v^H`` of the trailing block's lower triangle. Upper: LAPACK's reduction
    of the upper triangle, last column first, is this one on the matrix with rows and columns reversed
    (``stablehlo.reverse`` before and after; ``d``, ``e``, ``tau`` reversed).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    info = splat(e, 0, "i32", batch)
    if n < 2:
        diag = diagonal_of(e, a)
        d = e.real(diag) if a.t in COMPLEX_TYPES else diag
        if a.t in COMPLEX_TYPES:  # (?hetd2 makes the diagonal real even when there is nothing to reduce)
            a = to_elem(e, d, a.t) if n else a
            a = e.reshape(a, shape)
        empty = [splat(e, 0, real_type(a.t), batch + [0]), splat(e, 0, a.t, batch + [0])]
        return [a, d, *empty, info]
    if n > blocked.SYTRD_UNBLOCKED and 0 not in batch:
        src = a if lower else reverse(e, a, [r, r + 1])
        x, d, ev, tau = blocked.sytrd_lower_blocked(e, hermitian_from_lower(e, src))
        rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
        x = e.select(e.compare("GE", rows, cols, "SIGNED"), x, src)  # (the other triangle is the input's)
    elif lower:
        return [*_sytrd_lower(e, a), info]
    else:
        x, d, ev, tau = _sytrd_lower(e, reverse(e, a, [r, r + 1]))
    if lower:
        return [x, d, ev, tau, info]
    return [reverse(e, x, [r, r + 1]), reverse(e, d, [r]), reverse(e, ev, [r]), reverse(e, tau, [r]), info]


def sytrd_for_eigh(e: Emitter, h: V) -> tuple[V, V, V, V]:
    """The reduction ``Q^H H Q = T`` of the Hermitian ``h`` (``[*b, n, n]``; only its lower triangle is
    read, a complex diagonal's imaginary part ignored) for an eigensolver: ``(packed, tau, d, off)`` --
    ``packed`` ``[*b, n, n]`` and ``tau`` ``[*b, n - 1]`` as ``?sytrd`` / ``?hetrd`` uplo 'L' return them
    (for :func:`apply_sytrd_q` with ``lower=True``: eigenvectors ``Z`` of ``T`` give ``H``'s as ``Q Z``),
    ``d`` ``[*b, n]`` and ``off`` ``[*b, n - 1]`` (real) the diagonal and off-diagonal of the real symmetric
    ``T``. Blocked beyond order :data:`~hlokit.passes.lapack.tridiagonal_blocked.SYTRD_UNBLOCKED`
    (:func:`build_sytrd`); there ``packed`` holds unspecified values above the diagonal (``apply_sytrd_q``
    reads the reflectors below the subdiagonal only), not the input's upper triangle."""
    n = h.shape[-1]
    if n > blocked.SYTRD_UNBLOCKED and 0 not in h.shape[:-2]:
        packed, d, off, tau = blocked.sytrd_lower_blocked(e, hermitian_from_lower(e, h))
        return packed, tau, d, off
    packed, d, off, tau, _ = build_sytrd(e, h, True)
    return packed, tau, d, off


def build_gtsv(e: Emitter, dl: V, d: V, du: V, b: V) -> list[V]:
    """``gtsv`` as jaxlib calls it (``jax.lax.linalg.tridiagonal_solve``): ``dl``, ``d``, ``du``
    (``[*batch, n]``; the subdiagonal is ``dl[1:]``, the superdiagonal ``du[:n-1]``: ``dl[0]`` and
    ``du[n-1]`` are padding, passed through) and ``b`` (``[*batch, n, k]``). Returns ``[dl', d', du', x,
    info]`` as LAPACK ``?gtsv`` leaves them: ``d'`` the diagonal of ``U`` in ``P A = L U``, ``du'`` its first
    and ``dl'[1:n-1]`` its second superdiagonal, ``x`` the solution, ``info`` (i32 ``[*batch]``) 0 or the
    1-based index of the first zero pivot (then ``x`` holds infinities or NaNs; JAX replaces it by NaN).

    Elimination (a ``stablehlo.while`` over rows ``k < n - 1``): rows ``k`` and ``k + 1`` are swapped
    unless ``|d[k]| >= |dl[k+1]|`` (``|re| + |im|`` for complex), then row ``k + 1`` loses its multiple of
    row ``k`` (Golub & Van Loan, *Matrix Computations*, 4th ed., §4.3.6 and §3.4; LAPACK ``?gtsv``'s
    row order). Back substitution with the three diagonals of ``U`` (a second loop, ``k`` from ``n - 1``
    down). The numpy mirror is ``gtsv`` of ``tests/pytest/lapack_reference.py``.
    """
    batch, n, k_rhs = b.shape[:-2], b.shape[-2], b.shape[-1]
    r = len(batch)
    bdims = list(range(r))
    zero_i = e.scalar(0, "i32")
    is_complex = d.t in COMPLEX_TYPES
    info = splat(e, 0, "i32", batch)
    if n == 0:
        return [dl, d, du, b, info]

    def row(x: V, i: V) -> V:  # x[..., i, :] as [*batch, 1, k]
        return e.dynamic_slice(x, [zero_i] * r + [i, zero_i], batch + [1, k_rhs])

    def set_row(x: V, i: V, y: V) -> V:
        return e.dynamic_update_slice(x, y, [zero_i] * r + [i, zero_i])

    def wide(v: V) -> V:  # [*batch] -> [*batch, 1, k]
        return e.broadcast_in_dim(v, batch + [1, k_rhs], bdims)

    def mag(v: V) -> V:
        return e.abs(e.real(v)) + e.abs(e.imag(v)) if is_complex else e.abs(v)

    def at(i: V) -> V:  # a 0-d i32 broadcast over the batch
        return e.broadcast_in_dim(i, batch, [])

    def eliminate(k: V, dl_: V, d_: V, du_: V, x: V, info_: V) -> list[V]:
        k1 = k + e.scalar(1, "i32")
        inner = e.broadcast_in_dim(e.compare("LT", k, e.scalar(n - 2, "i32"), "SIGNED"), batch, [])
        dk, dk1, sub = entry_at(e, d_, k), entry_at(e, d_, k1), entry_at(e, dl_, k1)
        duk, duk1 = entry_at(e, du_, k), entry_at(e, du_, k1)
        bk, bk1 = row(x, k), row(x, k1)
        swap = e.not_(e.compare("GE", mag(dk), mag(sub), "FLOAT"))  # (a NaN swaps, as Fortran's .GE.)
        zero = splat(e, 0, d.t, batch)
        singular = e.and_(e.compare("EQ", dk, zero, "FLOAT"), e.compare("EQ", sub, zero, "FLOAT"))
        # no interchange: row k + 1 -= (sub / d[k]) row k
        m_keep = sub / e.select(singular, splat(e, 1, d.t, batch), dk)
        d1_keep = dk1 - m_keep * duk
        b1_keep = bk1 - wide(m_keep) * bk
        dl2_keep = e.select(inner, zero, sub)
        # interchange rows k and k + 1, then eliminate
        m_swap = dk / sub
        d1_swap = duk - m_swap * dk1
        dl2_swap = e.select(inner, duk1, sub)
        du1_swap = e.select(inner, -(m_swap * duk1), duk1)
        b1_swap = bk - wide(m_swap) * bk1
        swap_rows = e.broadcast_in_dim(swap, batch + [1, k_rhs], bdims)
        d_ = with_entry(e, with_entry(e, d_, k, e.select(swap, sub, dk)), k1, e.select(swap, d1_swap, d1_keep))
        du_ = with_entry(e, with_entry(e, du_, k, e.select(swap, dk1, duk)), k1, e.select(swap, du1_swap, duk1))
        dl_ = with_entry(e, dl_, k1, e.select(swap, dl2_swap, dl2_keep))
        x = set_row(set_row(x, k, e.select(swap_rows, bk1, bk)), k1, e.select(swap_rows, b1_swap, b1_keep))
        first = e.and_(e.compare("EQ", info_, splat(e, 0, "i32", batch), "SIGNED"), e.and_(e.not_(swap), singular))
        info_ = e.select(first, at(k1), info_)
        return [k1, dl_, d_, du_, x, info_]

    carry = e.while_(
        [zero_i, dl, d, du, b, info],
        lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
        eliminate,
    )
    _, dl, d, du, x, info = carry
    last = e.scalar(n - 1, "i32")
    first = e.and_(e.compare("EQ", info, splat(e, 0, "i32", batch), "SIGNED"),
                   e.compare("EQ", entry_at(e, d, last), splat(e, 0, d.t, batch), "FLOAT"))
    info = e.select(first, splat(e, n, "i32", batch), info)

    def substitute(k: V, x_: V) -> list[V]:
        k1, k2 = k + e.scalar(1, "i32"), k + e.scalar(2, "i32")
        acc = row(x_, k)
        has1 = e.broadcast_in_dim(e.compare("LE", k1, last, "SIGNED"), batch + [1, k_rhs], [])
        has2 = e.broadcast_in_dim(e.compare("LE", k2, last, "SIGNED"), batch + [1, k_rhs], [])
        zeros = splat(e, 0, d.t, batch + [1, k_rhs])
        # (a missing term is selected away, never multiplied by 0: an infinity must not become NaN)
        acc = acc - e.select(has1, wide(entry_at(e, du, k)) * row(x_, k1), zeros)
        acc = acc - e.select(has2, wide(entry_at(e, dl, k1)) * row(x_, k2), zeros)
        return [k - e.scalar(1, "i32"), set_row(x_, k, acc / wide(entry_at(e, d, k)))]

    _, x = e.while_(
        [last, x],
        lambda k, *_: e.compare("GE", k, zero_i, "SIGNED"),
        substitute,
    )
    return [dl, d, du, x, info]
