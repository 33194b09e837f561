"""Householder QR: LAPACK ``geqrf`` (``?geqr2``), ``orgqr`` / ``ungqr`` (``?org2r``), ``geqp3`` (``?laqp2``).

* :func:`build_geqrf` -- unblocked Householder QR with LAPACK's reflector conventions
  (:func:`householder`), so ``R``'s signs and phases are LAPACK's.
* :func:`build_orgqr` -- the explicit ``Q`` by backward accumulation of the reflectors.
* :func:`build_geqp3` -- QR with column pivoting: LAPACK's moves of the fixed columns, then the pivot of
  largest partial norm, with the norms downdated (Businger & Golub) and recomputed where the downdate lost
  too many digits (LAPACK Working Note 176), so the pivots are LAPACK's.

Sources: LAPACK's ``dgeqr2``, ``dorg2r``, ``dgeqp3`` / ``dlaqp2`` documentation; Golub & Van Loan,
*Matrix Computations*, 4th ed., §5.2 and §5.4.2; XLA's ``xla/hlo/builder/lib/qr.cc``. The numpy mirrors
are in ``tests/pytest/lapack_reference.py``.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import V, Emitter
from hlokit.passes.lapack.householder import householder, reflect_left, store_reflector
from hlokit.passes.lapack.matrix import (
    abs2, column_of, conj, entry_at, finfo, identity_matrix, magnitude, real_type, reduce_with, row_of,
    splat, with_column, with_entry,
)

__all__ = ["build_geqrf", "build_orgqr", "build_geqp3"]


def build_geqrf(e: Emitter, a: V) -> list[V]:
    """``geqrf`` of ``a`` (``[*b, m, n]``): ``[qr, tau]`` as LAPACK returns them (``R`` on and above the
    diagonal, the Householder vectors below it, ``tau`` ``[*b, min(m, n)]``).

    A ``stablehlo.while`` over ``k < min(m, n)`` carrying ``(k, qr, tau)`` (unblocked ``?geqr2``): the
    reflector of column ``k`` (:func:`householder`), ``H^H`` applied to the columns right of ``k`` under an
    iota mask, ``beta`` and ``v`` written into column ``k``.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)

    def body(k: V, qr: V, tau: V) -> list[V]:
        col = column_of(e, qr, k)
        v, t, beta = householder(e, col, k)
        tau = with_entry(e, tau, k, t)
        cols = e.iota(shape, r + 1, "i32")
        kk = e.broadcast_in_dim(k, shape, [])
        qr = e.select(e.compare("GT", cols, kk, "SIGNED"), reflect_left(e, qr, v, conj(e, t)), qr)
        qr = with_column(e, qr, k, store_reflector(e, col, k, v, beta))
        return [k + 1, qr, tau]

    init = [e.scalar(0, "i32"), a, splat(e, 0, a.t, batch + [kmax])]
    out = e.while_(init, lambda k, *_: e.compare("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
                       lambda k, qr, tau: body(k, qr, tau))
    return out[1:]


def build_orgqr(e: Emitter, a: V, tau: V) -> V:
    """``orgqr`` / ``ungqr``: the first ``p`` columns of ``Q = H_0 ... H_{k-1}`` (``a`` ``[*b, m, p]`` from
    :func:`build_geqrf`, possibly zero-padded; ``tau`` ``[*b, k]``).

    A ``stablehlo.while`` over ``i < k`` carrying ``(i, q)`` from the identity: ``q <- H_j q`` with
    ``j = k - 1 - i`` (backward accumulation, unblocked ``?org2r``).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    kk = tau.shape[-1]
    zero_i = e.scalar(0, "i32")

    def body(i: V, q: V, a_: V, tau_: V) -> list[V]:
        j = e.scalar(kk - 1, "i32") - i
        col = column_of(e, a_, j)
        idx = e.iota(batch + [m], r, "i32")
        jb = e.broadcast_in_dim(j, batch + [m], [])
        v = e.select(e.compare("GT", idx, jb, "SIGNED"), col, splat(e, 0, a.t, batch + [m]))
        v = e.select(e.compare("EQ", idx, jb, "SIGNED"), splat(e, 1, a.t, batch + [m]), v)
        tj = e.reshape(e.dynamic_slice(tau_, [zero_i] * r + [j], batch + [1]), batch)
        return [i + 1, reflect_left(e, q, v, tj), a_, tau_]

    init = [e.scalar(0, "i32"), identity_matrix(e, shape, a.t), a, tau]
    out = e.while_(init, lambda i, *_: e.compare("LT", i, e.scalar(kk, "i32"), "SIGNED"), body)
    return out[1]


def _swap_entries(e: Emitter, x: V, i: V, p: V) -> V:
    """``x`` (``[*b, n]``) with entries ``i`` (0-d i32) and ``p`` (``[*b]`` i32, per batch element) swapped."""
    shape = x.shape
    r = len(shape) - 1
    bd = list(range(r))
    idx = e.iota(shape, r, "i32")
    at_i = e.compare("EQ", idx, e.broadcast_in_dim(i, shape, []), "SIGNED")
    at_p = e.compare("EQ", idx, e.broadcast_in_dim(p, shape, bd), "SIGNED")
    xi = e.reduce_sum(e.select(at_i, x, splat(e, 0, x.t, shape)), [r])
    xp = e.reduce_sum(e.select(at_p, x, splat(e, 0, x.t, shape)), [r])
    return e.select(at_i, e.broadcast_in_dim(xp, shape, bd), e.select(at_p, e.broadcast_in_dim(xi, shape, bd), x))


def _swap_columns(e: Emitter, a: V, i: V, p: V) -> V:
    """``a`` (``[*b, m, n]``) with columns ``i`` (0-d i32) and ``p`` (``[*b]`` i32) swapped."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    cols = e.iota(shape, r + 1, "i32")
    at_i = e.compare("EQ", cols, e.broadcast_in_dim(i, shape, []), "SIGNED")
    at_p = e.compare("EQ", cols, e.broadcast_in_dim(p, shape, bd), "SIGNED")
    ci = e.broadcast_in_dim(column_of(e, a, i), shape, bd + [r])
    cp = e.broadcast_in_dim(e.reduce_sum(e.select(at_p, a, splat(e, 0, a.t, shape)), [r + 1]), shape, bd + [r])
    return e.select(at_i, cp, e.select(at_p, ci, a))


def _column_norms(e: Emitter, a: V, k: V) -> V:
    """``||a[k:, j]||_2`` for every column ``j`` (``[*b, n]``, real)."""
    shape = a.shape
    r = len(shape) - 2
    rows = e.iota(shape, r, "i32")
    keep = e.compare("GE", rows, e.broadcast_in_dim(k, shape, []), "SIGNED")
    return e.sqrt(e.reduce_sum(e.select(keep, abs2(e, a), splat(e, 0, real_type(a.t), shape)), [r]))


def build_geqp3(e: Emitter, a: V, jpvt: V) -> list[V]:
    """``geqp3`` of ``a`` (``[*b, m, n]``) and ``jpvt`` (``[*b, n]`` i32; non-zero marks a column to move to
    the front and factor first): ``[qr, jpvt', tau]`` as LAPACK returns them: ``A P = Q R`` with ``R`` on and
    above the diagonal and the Householder vectors below (as ``geqrf``), ``jpvt'`` 1-based (column ``j`` of
    ``A P`` is column ``jpvt'[j] - 1`` of ``A``), ``tau`` ``[*b, min(m, n)]``.

    LAPACK ``?geqp3`` with its unblocked ``?laqp2``, as two ``stablehlo.while`` loops: the fixed columns moved
    to the front by LAPACK's swaps; then for ``k < min(m, n)`` the pivot (from the first free column on: the
    first largest partial norm), the column swap, the reflector of column ``k`` and ``H^H`` on the columns right
    of it (as :func:`build_geqrf`), and the partial norms downdated (Businger & Golub; recomputed where the
    downdate lost more than half the digits, LAPACK Working Note 176: ``tol3z = sqrt(eps / 2)``).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    bd = list(range(r))
    kmax = min(m, n)
    rt = real_type(a.t)
    zero_i = e.scalar(0, "i32")
    one_i = e.scalar(1, "i32")
    vec = batch + [n]

    def at1(j: V) -> V:  # j + 1 over the batch
        return e.broadcast_in_dim(j + one_i, batch, [])

    # 1. the fixed columns to the front (LAPACK's order of swaps, not a stable sort)
    def move(j: V, a_: V, p: V, nfxd: V) -> list[V]:
        fixed = e.compare("NE", entry_at(e, p, j), splat(e, 0, "i32", batch), "SIGNED")
        swapped = _swap_columns(e, a_, j, nfxd)
        a_ = e.select(e.broadcast_in_dim(fixed, shape, bd), swapped, a_)
        moved = _swap_entries(e, p, j, nfxd)  # jpvt[j] = jpvt[nfxd] ...
        onehot = e.compare("EQ", e.iota(vec, r, "i32"), e.broadcast_in_dim(nfxd, vec, bd), "SIGNED")
        moved = e.select(onehot, e.broadcast_in_dim(at1(j), vec, bd), moved)  # ... jpvt[nfxd] = j + 1
        p = e.select(e.broadcast_in_dim(fixed, vec, bd), moved, with_entry(e, p, j, at1(j)))
        nfxd = e.select(fixed, nfxd + splat(e, 1, "i32", batch), nfxd)
        return [j + one_i, a_, p, nfxd]

    _, a, jpvt, nfxd = e.while_(
        [zero_i, a, jpvt, splat(e, 0, "i32", batch)],
        lambda j, *_: e.compare("LT", j, e.scalar(n, "i32"), "SIGNED"),
        move,
    )
    if kmax == 0:
        return [a, jpvt, splat(e, 0, a.t, batch + [0])]

    eps = float(finfo(rt).eps)
    tol3z = math.sqrt(eps / 2)  # sqrt(dlamch('Epsilon'))

    # 2. Householder steps: no pivoting for the fixed columns, partial norms for the free ones
    def step(k: V, a_: V, p: V, tau: V, vn1: V, vn2: V) -> list[V]:
        kb = e.broadcast_in_dim(k, batch, [])
        free = e.compare("GE", kb, nfxd, "SIGNED")
        start = e.broadcast_in_dim(e.compare("EQ", kb, nfxd, "SIGNED"), vec, bd)  # first free column: fresh norms
        norms = _column_norms(e, a_, k)
        vn1 = e.select(start, norms, vn1)
        vn2 = e.select(start, norms, vn2)
        cols = e.iota(vec, r, "i32")
        candidate = e.select(e.compare("GE", cols, e.broadcast_in_dim(k, vec, []), "SIGNED"), vn1,
                             splat(e, -1.0, rt, vec))
        best = reduce_with(e, candidate, r, -math.inf, "maximum")
        first = e.select(e.compare("EQ", candidate, e.broadcast_in_dim(best, vec, bd), "FLOAT"), cols,
                         splat(e, n, "i32", vec))
        pvt = reduce_with(e, first, r, n, "minimum")
        pvt = e.select(e.and_(free, e.compare("LT", pvt, splat(e, n, "i32", batch), "SIGNED")), pvt, kb)
        a_ = _swap_columns(e, a_, k, pvt)
        p, vn1, vn2 = (_swap_entries(e, x, k, pvt) for x in (p, vn1, vn2))
        col = column_of(e, a_, k)
        v, t, beta = householder(e, col, k)
        tau = with_entry(e, tau, k, t)
        full = e.iota(shape, r + 1, "i32")
        a_ = e.select(e.compare("GT", full, e.broadcast_in_dim(k, shape, []), "SIGNED"),
                      reflect_left(e, a_, v, conj(e, t)), a_)
        a_ = with_column(e, a_, k, store_reflector(e, col, k, v, beta))
        # partial norms of the columns right of k, from row k + 1 down
        row_k = row_of(e, a_, k)
        zero = splat(e, 0, rt, vec)
        nonzero = e.compare("NE", vn1, zero, "FLOAT")
        safe1 = e.select(nonzero, vn1, splat(e, 1, rt, vec))
        safe2 = e.select(e.compare("NE", vn2, zero, "FLOAT"), vn2, splat(e, 1, rt, vec))
        ratio = magnitude(e, row_k) / safe1
        temp = e.maximum(splat(e, 1, rt, vec) - ratio * ratio, zero)
        scale = vn1 / safe2
        temp2 = temp * scale * scale
        fresh = _column_norms(e, a_, k + one_i)
        recompute = e.compare("LE", temp2, splat(e, tol3z, rt, vec), "FLOAT")
        new1 = e.select(recompute, fresh, vn1 * e.sqrt(temp))
        new2 = e.select(recompute, fresh, vn2)
        right = e.and_(e.compare("GT", cols, e.broadcast_in_dim(k, vec, []), "SIGNED"),
                       e.and_(nonzero, e.broadcast_in_dim(free, vec, bd)))
        vn1 = e.select(right, new1, vn1)
        vn2 = e.select(right, new2, vn2)
        return [k + one_i, a_, p, tau, vn1, vn2]

    zeros = splat(e, 0, rt, vec)
    _, a, jpvt, tau, _, _ = e.while_(
        [zero_i, a, jpvt, splat(e, 0, a.t, batch + [kmax]), zeros, zeros],
        lambda k, *_: e.compare("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
        step,
    )
    return [a, jpvt, tau]
