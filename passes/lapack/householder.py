"""Householder reflectors: LAPACK ``?larfg`` / ``zlarfg`` (generation) and ``?larf`` (application).

:func:`householder` returns ``(v, tau, beta)`` with ``H = I - tau v v^H`` and ``H^H x[k:] = beta e_1``, with
LAPACK's sign and phase conventions (``beta`` real, ``tau = 0`` where nothing is to be annihilated), computed
on the vector divided by its largest magnitude (LAPACK's scaled ``?nrm2``); :func:`reflect_left` /
:func:`reflect_right` apply ``H`` from either side as one ``dot_general`` and a rank-1 update;
:func:`store_reflector` writes ``beta`` and ``v`` back as LAPACK leaves a factored column. Used by QR,
Hessenberg and tridiagonal reduction and the QR steps of the Schur forms. Sources: LAPACK's ``dlarfg`` /
``zlarfg`` documentation; Golub & Van Loan, *Matrix Computations*, 4th ed., §5.1.2-5.1.4.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.matrix import HIGHEST, abs2, conj, magnitude, real_type, reduce_with, splat, to_elem

__all__ = ["householder", "by_largest", "reflect_left", "reflect_right", "store_reflector"]


def householder(e: Emitter, x: V, k: V) -> tuple[V, V, V]:
    """``?larfg`` on ``x[k:]`` of ``x`` ``[*b, m]``: ``(v, tau, beta)`` with ``v`` zero above ``k`` and 1
    at ``k``, ``H = I - tau v v^H``, ``H^H x[k:] = beta e_1`` (``beta`` real, in the element type);
    ``tau = 0`` where ``x[k+1:]`` is zero and ``x[k]`` real (LAPACK ``?larfg`` / ``zlarfg``). The norm is
    taken of ``x[k:]`` divided by its largest magnitude (``v`` and ``tau`` are those of any multiple of
    ``x``), so squares neither overflow nor underflow (LAPACK: the scaled ``?nrm2`` / ``?lapy2``)."""
    shape = x.shape
    r = len(shape) - 1
    t = x.t
    rt = real_type(t)
    idx = e.iota(shape, r, "i32")
    kb = e.broadcast_in_dim(k, shape, [])
    scaled, big = by_largest(e, x, e.select(e.compare("GE", idx, kb, "SIGNED"), magnitude(e, x), splat(e, 0, rt, shape)))
    v, tau, beta = _householder_scaled(e, scaled, idx, kb)
    return v, tau, beta * to_elem(e, big, t)


def by_largest(e: Emitter, x: V, mag: V) -> tuple[V, V]:
    """``(x / s, s)`` for ``x`` ``[*b, m]`` and magnitudes ``mag`` ``[*b, m]`` (real): ``s`` ``[*b]`` the largest
    of ``mag``, 1 where that is 0. Squares of ``x / s`` neither overflow nor underflow (LAPACK's scaled
    ``?nrm2``)."""
    shape = x.shape
    r = len(shape) - 1
    big = reduce_with(e, mag, r, 0.0, "maximum")
    big = e.select(e.compare("EQ", big, splat(e, 0, mag.t, shape[:r]), "FLOAT"), splat(e, 1, mag.t, shape[:r]), big)
    return x / to_elem(e, e.broadcast_in_dim(big, shape, list(range(r))), x.t), big


def _householder_scaled(e: Emitter, x: V, idx: V, kb: V) -> tuple[V, V, V]:
    """:func:`householder` of ``x`` whose entries ``k:`` are at most 1 in magnitude."""
    shape = x.shape
    r = len(shape) - 1
    t = x.t
    rt = real_type(t)
    below, at = e.compare("GT", idx, kb, "SIGNED"), e.compare("EQ", idx, kb, "SIGNED")
    alpha = e.reduce_sum(e.select(at, x, splat(e, 0, t, shape)), [r])
    xnorm2 = e.reduce_sum(e.select(below, abs2(e, x), splat(e, 0, rt, shape)), [r])
    are = e.real(alpha) if t in COMPLEX_TYPES else alpha
    aim = e.imag(alpha) if t in COMPLEX_TYPES else None
    zero = splat(e, 0, rt, shape[:r])
    trivial = e.compare("EQ", xnorm2, zero, "FLOAT")
    if aim is not None:
        trivial = e.and_(trivial, e.compare("EQ", aim, zero, "FLOAT"))
    norm = e.sqrt(abs2(e, alpha) + xnorm2)
    beta = e.select(e.compare("GE", are, zero, "FLOAT"), -norm, norm)
    safe = to_elem(e, e.select(trivial, splat(e, 1, rt, shape[:r]), beta), t)
    tau = e.select(trivial, splat(e, 0, t, shape[:r]), (safe - alpha) / safe)
    denom = e.select(trivial, splat(e, 1, t, shape[:r]), alpha - safe)
    v = e.select(below, x / e.broadcast_in_dim(denom, shape, list(range(r))), splat(e, 0, t, shape))
    v = e.select(at, splat(e, 1, t, shape), v)
    beta = to_elem(e, e.select(trivial, are, beta), t)
    return v, tau, beta


def reflect_left(e: Emitter, x: V, v: V, tau: V) -> V:
    """``x - tau v (v^H x)`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, m]``, ``tau`` ``[*b]`` (one
    ``dot_general`` for ``v^H x`` and a rank-1 update)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    w = e.dot_general(conj(e, v), x, bd, bd, [r], [r], precision=HIGHEST)  # [*b, n]
    update = (e.broadcast_in_dim(tau, shape, bd) * e.broadcast_in_dim(v, shape, bd + [r])
              * e.broadcast_in_dim(w, shape, bd + [r + 1]))
    return x - update


def reflect_right(e: Emitter, x: V, v: V, tau: V) -> V:
    """``x - tau (x v) v^H`` for ``x`` ``[*b, m, n]``, ``v`` ``[*b, n]``, ``tau`` ``[*b]``: ``x H`` with
    ``H = I - tau v v^H`` (one ``dot_general`` for ``x v`` and a rank-1 update)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    w = e.dot_general(x, v, bd, bd, [r + 1], [r], precision=HIGHEST)  # [*b, m]
    update = (e.broadcast_in_dim(tau, shape, bd) * e.broadcast_in_dim(w, shape, bd + [r])
              * e.broadcast_in_dim(conj(e, v), shape, bd + [r + 1]))
    return x - update


def store_reflector(e: Emitter, col: V, row: V, v: V, beta: V) -> V:
    """Column ``col`` ``[*b, m]`` as LAPACK leaves it after the reflector of ``col[row:]``: rows above ``row``
    unchanged, ``beta`` at ``row``, ``v`` below it."""
    shape = col.shape
    r = len(shape) - 1
    idx = e.iota(shape, r, "i32")
    at = e.broadcast_in_dim(row, shape, [])
    return e.select(e.compare("EQ", idx, at, "SIGNED"), e.broadcast_in_dim(beta, shape, list(range(r))),
                    e.select(e.compare("GT", idx, at, "SIGNED"), v, col))
