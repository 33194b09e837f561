"""Hessenberg reduction: LAPACK ``gehrd`` (the unblocked ``?gehd2``), and the ``(H, Q)`` pair of the Schur forms.

* :func:`build_gehrd` -- ``H = Q^H A Q`` upper Hessenberg with LAPACK's storage of the reflectors and
  ``tau`` (``jax.lax.linalg.hessenberg``).
* :func:`hessenberg_with_q` -- the same reflectors applied to both sides and accumulated into ``Q``, with
  the subdiagonal exactly each reflector's real ``beta`` (what the QR steps of
  :mod:`hlokit.passes.lapack.schur` and :mod:`hlokit.passes.lapack.real_schur` start from).

Sources: LAPACK's ``dgehd2`` / ``zgehd2`` documentation; Golub & Van Loan, *Matrix Computations*, 4th ed.,
§7.4.3.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.householder import householder, reflect_left, reflect_right, store_reflector
from hlokit.passes.lapack.matrix import column_of, conj, identity_matrix, splat, with_column, with_entry

__all__ = ["build_gehrd", "zero_below_subdiagonal", "hessenberg_with_q"]


def build_gehrd(e: Emitter, a: V) -> list[V]:
    """``gehrd`` of ``a`` (``[*b, n, n]``, ``ilo = 1``, ``ihi = n``): ``[h, tau, info]`` as LAPACK returns
    them: the upper Hessenberg ``H = Q^H A Q`` on and above the first subdiagonal, the Householder vectors
    of ``Q = H_1 ... H_{n-1}`` below it (implicit 1 on the subdiagonal), ``tau`` ``[*b, n - 1]``, ``info`` 0.

    A ``stablehlo.while`` over ``k < n - 1`` (unblocked ``?gehd2``): the reflector of ``a[k+1:, k]``
    (:func:`householder`, ``?larfg``'s conventions), applied from the right to every row, then (with
    ``conj(tau)``) from the left to the columns right of ``k``; ``beta`` and ``v`` written into column ``k``.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    zero_i = e.scalar(0, "i32")
    info = splat(e, 0, "i32", batch)
    if n < 2:
        return [a, splat(e, 0, a.t, batch + [0]), info]

    def body(k: V, h: V, tau: V) -> list[V]:
        col = column_of(e, h, k)
        v, t, beta = householder(e, col, k + e.scalar(1, "i32"))
        tau = with_entry(e, tau, k, t)
        h = reflect_right(e, h, v, t)
        right = e.compare("GT", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(k, shape, []), "SIGNED")
        h = e.select(right, reflect_left(e, h, v, conj(e, t)), h)
        h = with_column(e, h, k, store_reflector(e, col, k + e.scalar(1, "i32"), v, beta))
        return [k + 1, h, tau]

    init = [zero_i, a, splat(e, 0, a.t, batch + [n - 1])]
    _, h, tau = e.while_(init, lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                             lambda k, h, tau: body(k, h, tau))
    return [h, tau, info]


def zero_below_subdiagonal(e: Emitter, h: V) -> V:
    """``h`` with every entry below the first subdiagonal set to exactly 0 (upper Hessenberg form)."""
    shape = h.shape
    r = len(shape) - 2
    below = e.compare("GT", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32") + 1, "SIGNED")
    return e.select(below, splat(e, 0, h.t, shape), h)


def hessenberg_with_q(e: Emitter, a: V) -> tuple[V, V]:
    """``(H, Q)`` with ``A = Q H Q^H``, ``H`` upper Hessenberg, ``Q`` unitary: the reflectors of
    :func:`build_gehrd` (``?gehd2``), applied to both sides and accumulated; as ``?gehd2`` stores them, each
    subdiagonal entry is exactly the reflector's real ``beta`` and the entries below it exactly 0. A complex
    ``a`` takes ``n - 1`` reflectors (the last, of one entry, makes ``h[n-1, n-2]`` real, as ``zgehd2``'s),
    a real one ``n - 2``."""
    shape = a.shape
    r = len(shape) - 2
    n = shape[-1]
    q = identity_matrix(e, shape, a.t)
    steps = n - 1 if a.t in COMPLEX_TYPES else n - 2
    if steps < 1:
        return a, q
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    bd = list(range(r))

    def body(k: V, h: V, q: V) -> list[V]:
        v, t, beta = householder(e, column_of(e, h, k), k + e.scalar(1, "i32"))
        h = reflect_right(e, reflect_left(e, h, v, conj(e, t)), v, t)  # H_k^H h H_k
        kb = e.broadcast_in_dim(k, shape, [])
        column = e.compare("EQ", cols, kb, "SIGNED")
        h = e.select(e.and_(column, e.compare("EQ", rows, kb + 1, "SIGNED")), e.broadcast_in_dim(beta, shape, bd), h)
        h = e.select(e.and_(column, e.compare("GT", rows, kb + 1, "SIGNED")), splat(e, 0, h.t, shape), h)
        return [k + 1, h, reflect_right(e, q, v, t)]

    out = e.while_([e.scalar(0, "i32"), a, q],
                       lambda k, *_: e.compare("LT", k, e.scalar(steps, "i32"), "SIGNED"), body)
    return zero_below_subdiagonal(e, out[1]), out[2]
