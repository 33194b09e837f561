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

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, UnsupportedError, V
from hlokit.passes.lapack.matrix import reduce_with, splat

__all__ = ["build_getrf", "build_lu_pivots_to_permutation"]


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


def build_lu_pivots_to_permutation(e: Emitter, pivots: V, permutation_size: int) -> V:
    """The permutation of LAPACK-style 0-based row swaps: ``pivots`` (``i32 [*batch, k]``) ->
    ``i32 [*batch, permutation_size]``.

    Starts from the identity ``0 .. permutation_size - 1`` and, for ``i`` in ``0 .. k - 1``, swaps entries
    ``i`` and ``pivots[..., i]`` of each batch element; a pivot outside ``[0, permutation_size)`` swaps
    nothing. That is JAX's ``lu_pivots_to_permutation`` primitive (``_generic_lu_pivots_to_permutation`` in
    ``jax/_src/lax/linalg.py``), which on cuda / rocm is the custom call ``cu_lu_pivots_to_permutation`` /
    ``hip_lu_pivots_to_permutation`` (``_lu_pivots_to_permutation_gpu_lowering``; jaxlib's kernel
    ``jaxlib/gpu/lu_pivot_kernels.cu.cc`` skips out-of-range pivots the same way). Written as a
    ``stablehlo.while`` over ``i`` carrying the permutation; the entry at ``pivots[..., i]`` is read and
    written through one-hot masks, since it differs per batch element.

    Raises :class:`~hlokit.passes.builder.UnsupportedError` for pivots that are not ``i32`` of static
    shape and rank >= 1, or ``permutation_size < k``.
    """
    if pivots.t != "i32":
        raise UnsupportedError(f"lu_pivots_to_permutation takes 'i32' pivots, not '{pivots.t}'")
    shape = pivots.shape
    if not shape or any(d < 0 for d in shape):
        raise UnsupportedError("lu_pivots_to_permutation needs pivots of static shape and rank >= 1")
    batch, k, m = shape[:-1], shape[-1], int(permutation_size)
    if m < k:
        raise UnsupportedError(f"permutation size {m} is smaller than the number of pivots {k}")
    r = len(batch)
    out_shape = batch + [m]
    perm = e.iota(out_shape, r, "i32")
    if k == 0 or m == 0 or 0 in batch:
        return perm
    zero_i = e.scalar(0, "i32")
    bdims = list(range(r))
    cols = perm  # (the column index: the identity permutation)

    def body(i: V, perm: V) -> list[V]:
        j = e.reshape(e.dynamic_slice(pivots, [zero_i] * r + [i], batch + [1]), batch)
        valid = e.and_(e.compare("GE", j, splat(e, 0, "i32", batch), "SIGNED"),
                       e.compare("LT", j, splat(e, m, "i32", batch), "SIGNED"))
        at_j = e.and_(e.compare("EQ", cols, e.broadcast_in_dim(j, out_shape, bdims), "SIGNED"),
                      e.broadcast_in_dim(valid, out_shape, bdims))
        at_i = e.and_(e.compare("EQ", cols, e.broadcast_in_dim(i, out_shape, []), "SIGNED"),
                      e.broadcast_in_dim(valid, out_shape, bdims))
        zeros = splat(e, 0, "i32", out_shape)
        p_j = e.broadcast_in_dim(reduce_with(e, e.select(at_j, perm, zeros), r, 0, "add"), out_shape, bdims)
        p_i = e.broadcast_in_dim(reduce_with(e, e.select(at_i, perm, zeros), r, 0, "add"), out_shape, bdims)
        return [i + 1, e.select(at_i, p_j, e.select(at_j, p_i, perm))]

    out = e.while_(
        [zero_i, perm],
        lambda i, _: e.compare("LT", i, e.scalar(k, "i32"), "SIGNED"),
        body,
    )
    return out[1]
