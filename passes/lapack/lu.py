"""LU factorization with partial pivoting: LAPACK ``getrf`` (the unblocked, right-looking ``?getf2``).

:func:`build_getrf` is a ``stablehlo.while`` over the columns giving LAPACK's factors, 1-based pivots and
``info``: the pivot is the first maximum of ``|x|`` on or below the diagonal (``|re| + |im|`` for complex,
as ``i?amax``), rows are swapped by one-hot masks (the pivot row differs per batch element), ``info`` is the
1-based index of the first exactly zero pivot (whose column is then left unscaled). Sources: LAPACK's
``dgetf2`` documentation; Golub & Van Loan, *Matrix Computations*, 4th ed., §3.4 (Alg. 3.4.1); XLA's
``xla/hlo/builder/lib/lu_decomposition.cc`` is the counterpart in XLA. The numpy mirror used by the tests
is ``tests/pytest/lapack_reference.py`` (``getrf``).
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.matrix import reduce_with, splat

__all__ = ["build_getrf"]


def _getrf_body(e: Emitter, k: V, lu: V, ipiv: V, info: V) -> list[V]:
    """One step of right-looking LU (``?getf2``) at column ``k``; returns the next loop carry."""
    shape = lu.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    elem = lu.t
    is_complex = elem in COMPLEX_TYPES
    real = elem[len("complex<"):-1] if is_complex else elem
    zero_i = e.scalar(0, "i32")
    bdims = list(range(r))

    def at(value: V, full) -> V:  # broadcast a scalar i32 (k) to ``full``
        return e.broadcast_in_dim(value, full, [])

    col = e.reshape(e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1]), batch + [m])
    mag = e.abs(e.real(col)) + e.abs(e.imag(col)) if is_complex else e.abs(col)
    rows_m = e.iota(batch + [m], r, "i32")
    mag = e.select(e.compare("GE", rows_m, at(k, batch + [m]), "SIGNED"), mag, splat(e, -1.0, real, batch + [m]))
    best = reduce_with(e, mag, r, -math.inf, "maximum")
    is_best = e.compare("EQ", mag, e.broadcast_in_dim(best, batch + [m], bdims), "FLOAT")
    p = reduce_with(e, e.select(is_best, rows_m, splat(e, m, "i32", batch + [m])), r, m, "minimum")
    p = e.select(e.compare("EQ", p, splat(e, m, "i32", batch), "SIGNED"), at(k, batch), p)
    ipiv = e.dynamic_update_slice(ipiv, e.reshape(p + splat(e, 1, "i32", batch), batch + [1]), [zero_i] * r + [k])
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    full_dims = list(range(r + 2))
    row_k = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    onehot_p = e.compare("EQ", rows, e.broadcast_in_dim(p, shape, bdims), "SIGNED")
    row_p = reduce_with(e, e.select(onehot_p, lu, splat(e, 0, elem, shape)), r, 0, "add")
    row_p = e.broadcast_in_dim(row_p, shape, bdims + [r + 1])
    is_row_k = e.compare("EQ", rows, at(k, shape), "SIGNED")
    lu = e.select(is_row_k, row_p, e.select(onehot_p, row_k, lu))
    pivot = e.dynamic_slice(lu, [zero_i] * r + [k, k], batch + [1, 1])
    zero = e.compare("EQ", pivot, splat(e, 0, elem, batch + [1, 1]), "FLOAT")
    first = e.and_(e.compare("EQ", info, splat(e, 0, "i32", batch), "SIGNED"), e.reshape(zero, batch))
    info = e.select(first, at(k + 1, batch), info)
    safe = e.select(zero, splat(e, 1, elem, batch + [1, 1]), pivot)
    col = e.dynamic_slice(lu, [zero_i] * r + [zero_i, k], batch + [m, 1])
    below = e.compare("GT", e.iota(batch + [m, 1], r, "i32"), at(k, batch + [m, 1]), "SIGNED")
    scale = e.and_(below, e.broadcast_in_dim(e.not_(zero), batch + [m, 1], full_dims))
    quotient = col / e.broadcast_in_dim(safe, batch + [m, 1], full_dims)
    l_full = e.broadcast_in_dim(e.select(scale, quotient, col), shape, full_dims)
    lu = e.select(e.compare("EQ", cols, at(k, shape), "SIGNED"), l_full, lu)
    urow = e.broadcast_in_dim(e.dynamic_slice(lu, [zero_i] * r + [k, zero_i], batch + [1, n]), shape, full_dims)
    update = lu - l_full * urow
    trailing = e.and_(e.compare("GT", rows, at(k, shape), "SIGNED"), e.compare("GT", cols, at(k, shape), "SIGNED"))
    lu = e.select(trailing, update, lu)
    return [k + 1, lu, ipiv, info]


def build_getrf(e: Emitter, a: V) -> list[V]:
    """``getrf`` of ``a`` (``[*batch, m, n]``): ``[lu, ipiv (1-based, i32 [*batch, min(m, n)]), info]``.

    A ``stablehlo.while`` over ``k`` in ``[0, min(m, n))`` carrying ``(k, lu, ipiv, info)``; each step is
    :func:`_getrf_body` (pivot = first maximum of ``|x|`` (``|re| + |im|`` for complex) on or below the
    diagonal, as LAPACK's ``i?amax``; row swap by one-hot masks; ``info`` = 1-based first zero pivot).
    """
    shape = a.shape
    batch, m, n = shape[:-2], shape[-2], shape[-1]
    kmax = min(m, n)
    init = [e.scalar(0, "i32"), a, splat(e, 0, "i32", batch + [kmax]), splat(e, 0, "i32", batch)]
    out = e.while_(
        init,
        lambda k, *_: e.compare("LT", k, e.scalar(kmax, "i32"), "SIGNED"),
        lambda k, lu, ipiv, info: _getrf_body(e, k, lu, ipiv, info),
    )
    return out[1:]
