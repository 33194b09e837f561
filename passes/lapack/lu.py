"""LU factorization with partial pivoting: LAPACK ``getrf`` as a blocked, right-looking algorithm.

:func:`build_getrf` gives LAPACK's factors, 1-based pivots and ``info``. The columns are taken in blocks of
``nb`` (:func:`getrf_block_size`); block ``j`` (columns ``j0 .. j0 + jb``) is

1. the **panel** ``A[j0:, j0:j0+jb]`` factored by the unblocked right-looking ``?getf2``
   (:func:`_factor_panel`, a ``stablehlo.while`` over its columns): the pivot is the first maximum of
   ``|x|`` (``|re| + |im|`` for complex, as LAPACK's ``i?amax``) on or below the diagonal, the pivot row is
   read by a ``gather`` (it differs per batch element), ``info`` is the 1-based index of the first exactly
   zero pivot (whose column is then left unscaled); the panel's rows stay where they are, the loop carries
   each row's position after LAPACK's swaps and the inverse permutation;
2. that permutation applied to the rows ``j0:`` of the other columns as one ``gather`` (LAPACK ``?laswp``);
3. ``U12 = L11^-1 A12`` by one ``stablehlo.triangular_solve`` (unit lower; LAPACK ``?trsm``);
4. the trailing update ``A22 -= L21 U12`` by one ``dot_general`` (LAPACK ``?gemm``).

The whole blocks are one ``stablehlo.while`` (:func:`_looped_blocks`: full-height panels, the
triangular solve and the product masked to the trailing rows and columns, so every block has one shape
and the program, and XLA's compile time, do not grow with ``n``); the ``min(m, n) mod nb`` columns left
over are one more block of static shape. A matrix with ``min(m, n) <= 64`` is one panel: the unblocked
``?getf2`` over the whole matrix and one gather. The blocked algorithm performs the same eliminations in
another order, so its pivots are those of ``?getf2`` up to rounding.
Sources: LAPACK's ``dgetrf`` / ``dgetf2`` / ``dlaswp`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §3.4 (Alg. 3.4.1 and the block version §3.4.7 "Block Gaussian elimination"); XLA's
``xla/hlo/builder/lib/lu_decomposition.cc`` and JAX's ``_lu_blocked`` in ``jax/_src/lax/linalg.py`` are the
counterparts elsewhere. The numpy mirror of ``?getf2`` used by the tests is
``tests/pytest/lapack_reference.py`` (``getrf``).
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import dot, reduce_with, splat

__all__ = ["build_getrf", "getrf_block_size", "build_lu_pivots_to_permutation"]


def getrf_block_size(k: int) -> int:
    """The column block ``nb`` of :func:`build_getrf` for a matrix with ``min(m, n) = k``.

    Up to 64 columns the whole matrix is one panel (the unblocked ``?getf2``: no extra ops); beyond,
    ``nb = 64``. Measured on XLA CPU, f32, 2 shared cores (``benchmarks/linalg.py`` and a sweep of
    ``block_size``): n = 256, nb 16 / 32 / 64 / 128: 2.8 / 2.2 / 2.0 / 2.7 ms; n = 512: 16.2 / 11.4 / 9.3 /
    16.5 ms; n = 1024: 157 / 110 / 68 / 76 ms. A narrower block makes more steps of the block loop (each a
    full-height gather and product), a wider one a longer panel loop over wider rows.
    """
    return 64 if k > 64 else max(k, 1)


def _rows_at(e: Emitter, x: V, idx: V) -> V:
    """Rows ``idx`` (i32 ``[*b, k]``, one list per batch element) of ``x`` (``[*b, m, w]``) as ``[*b, k, w]``:
    one ``stablehlo.gather`` of whole rows, the batch flattened into the row index (StableHLO spec,
    "gather")."""
    shape = x.shape
    r = len(shape) - 2
    batch, m, w = shape[:r], shape[r], shape[r + 1]
    k = idx.shape[-1]
    count = math.prod(batch)
    flat_idx = idx
    if r:  # the row of batch element b is b * m + idx (b the row-major batch index)
        base = e.reshape(e.iota([count, k], 0, "i32"), batch + [k])
        flat_idx = idx + base * splat(e, m, "i32", batch + [k])
    flat = e.reshape(x, [count * m, w]) if r else x
    rows = e.gather(flat, e.reshape(flat_idx, [count * k, 1]), offset_dims=[1], collapsed_slice_dims=[0],
                    start_index_map=[0], index_vector_dim=1, slice_sizes=[1, w])
    return e.reshape(rows, batch + [k, w]) if r else rows


#: The pivot search as one variadic ``reduce`` over (|x|, position) pairs (else a ``maximum`` reduce, then a
#: ``minimum`` reduce over the positions of the maximum).
ARGMAX_VARIADIC = False


def _first_max_position(e: Emitter, mag: V, pos: V, k: V) -> V:
    """The position (LAPACK's order) of the first largest ``mag`` (real ``[*b, m]``; rows done hold -1) among
    ``pos`` (i32 ``[*b, m]``): one variadic ``stablehlo.reduce`` over ``(mag, pos)`` pairs (StableHLO spec,
    "reduce"), the larger magnitude winning, a tie going to the smaller position, a NaN winning over any
    number (so a column with a NaN gives the position ``k``: no swap, as the two-pass search). ``[*b]``."""
    shape = mag.shape
    r = len(shape) - 1
    big = shape[r]

    def combine(va: V, ia: V, vb: V, ib: V) -> list[V]:
        a_nan = e.compare("NE", va, va, "FLOAT")
        b_nan = e.compare("NE", vb, vb, "FLOAT")
        a_wins = e.or_(e.compare("GT", va, vb, "FLOAT"),
                       e.and_(e.compare("EQ", va, vb, "FLOAT"), e.compare("LT", ia, ib, "SIGNED")))
        a_wins = e.or_(e.and_(a_nan, e.or_(e.not_(b_nan), e.compare("LT", ia, ib, "SIGNED"))),
                       e.and_(e.not_(b_nan), a_wins))
        return [e.select(a_wins, va, vb), e.select(a_wins, ia, ib)]

    v, p = e.reduce([mag, pos], [e.scalar(-math.inf, mag.t), e.scalar(big, "i32")], [r], combine)
    nan = e.compare("NE", v, v, "FLOAT")
    return e.select(nan, e.broadcast_in_dim(k, shape[:r], []), p)


def _panel_step(e: Emitter, j0: V, k: V, lu: V, ipiv: V, info: V, pos: V, perm: V) -> list[V]:
    """Step ``k`` of ``?getf2`` (pivot position ``k``, panel column ``k - j0``) on the panel ``lu``
    (``[*b, m, w]``) whose rows stay where they are: ``pos`` (i32 ``[*b, m]``) is each stored row's position
    after the swaps so far (rows at positions below ``k`` are done), ``perm`` its inverse (the stored row at
    each position). Returns the next loop carry ``(k + 1, lu, ipiv, info, pos, perm)``."""
    shape = lu.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    vec = batch + [m]
    elem = lu.t
    is_complex = elem in COMPLEX_TYPES
    real = elem[len("complex<"):-1] if is_complex else elem
    zero_i = e.scalar(0, "i32")
    bdims = list(range(r))
    full_dims = list(range(r + 2))

    def at(value: V, full) -> V:  # broadcast a scalar i32 (k) to ``full``
        return e.broadcast_in_dim(value, full, [])

    def per_row(value: V, full) -> V:  # broadcast a [*b] value to ``full``
        return e.broadcast_in_dim(value, full, bdims)

    # The pivot: the first position (LAPACK's order) of largest |x| among the rows at positions >= k.
    kc = k - j0
    col = e.reshape(e.dynamic_slice(lu, [zero_i] * r + [zero_i, kc], batch + [m, 1]), vec)
    mag = e.abs(e.real(col)) + e.abs(e.imag(col)) if is_complex else e.abs(col)
    live = e.compare("GE", pos, at(k, vec), "SIGNED")
    mag = e.select(live, mag, splat(e, -1.0, real, vec))
    if ARGMAX_VARIADIC:
        p = _first_max_position(e, mag, pos, k)
    else:
        best = reduce_with(e, mag, r, -math.inf, "maximum")
        is_best = e.compare("EQ", mag, per_row(best, vec), "FLOAT")
        p = reduce_with(e, e.select(is_best, pos, splat(e, m, "i32", vec)), r, m, "minimum")
        p = e.select(e.compare("EQ", p, splat(e, m, "i32", batch), "SIGNED"), at(k, batch), p)  # NaN: no swap
    ipiv = e.dynamic_update_slice(ipiv, e.reshape(p, batch + [1]), [zero_i] * r + [k])
    # Swap positions k and p: q (stored at p) moves to k, the row at k moves to p.
    q = e.reshape(_rows_at(e, e.reshape(perm, vec + [1]), e.reshape(p, batch + [1])), batch)  # perm[p]
    row_k = e.reshape(e.dynamic_slice(perm, [zero_i] * r + [k], batch + [1]), batch)
    idx = e.iota(vec, r, "i32")
    perm = e.select(e.compare("EQ", idx, at(k, vec), "SIGNED"), per_row(q, vec),
                    e.select(e.compare("EQ", idx, per_row(p, vec), "SIGNED"), per_row(row_k, vec), perm))
    is_q = e.compare("EQ", idx, per_row(q, vec), "SIGNED")
    pos = e.select(is_q, at(k, vec), e.select(e.compare("EQ", idx, per_row(row_k, vec), "SIGNED"),
                                               per_row(p, vec), pos))
    # The pivot row (a gather: it differs per batch element), the multipliers and the rank-1 update.
    urow = _rows_at(e, lu, e.reshape(q, batch + [1]))  # [*b, 1, w]
    pivot = e.dynamic_slice(urow, [zero_i] * (r + 1) + [kc], batch + [1, 1])
    zero = e.reshape(e.compare("EQ", pivot, splat(e, 0, elem, batch + [1, 1]), "FLOAT"), batch)
    first = e.and_(e.compare("EQ", info, splat(e, 0, "i32", batch), "SIGNED"), zero)
    info = e.select(first, at(k + 1, batch), info)
    safe = e.select(zero, splat(e, 1, elem, batch), e.reshape(pivot, batch))
    below = e.compare("GT", pos, at(k, vec), "SIGNED")
    scale = e.and_(below, per_row(e.not_(zero), vec))
    lcol = e.select(scale, col / per_row(safe, vec), col)
    rows_below = e.broadcast_in_dim(below, shape, list(range(r + 1)))
    cols = e.iota(shape, r + 1, "i32")
    l_full = e.broadcast_in_dim(lcol, shape, list(range(r + 1)))
    update = lu - l_full * e.broadcast_in_dim(urow, shape, full_dims)
    lu = e.select(e.and_(rows_below, e.compare("GT", cols, at(kc, shape), "SIGNED")), update,
                  e.select(e.compare("EQ", cols, at(kc, shape), "SIGNED"), l_full, lu))
    return [k + 1, lu, ipiv, info, pos, perm]


def _factor_panel(e: Emitter, panel: V, steps: int, j0: V | None = None, ipiv: V | None = None,
                  info: V | None = None) -> list[V]:
    """``?getf2`` of ``panel`` (``[*b, m, w]``, column ``c`` at position ``j0 + c``) over its first ``steps``
    columns, rows left in place: a ``stablehlo.while`` over ``k`` in ``[j0, j0 + steps)`` carrying
    ``(k, lu, ipiv, info, pos, perm)`` (:func:`_panel_step`; rows start at positions ``0 .. m - 1``, those
    before ``j0`` done). Returns ``[lu, ipiv, info, perm]``: ``lu`` the factored panel with its rows **not**
    yet permuted, ``ipiv`` i32 ``[*b, steps]`` (or the given one, written at ``k``) the **0-based** pivot
    positions (LAPACK's swap sequence), ``info`` i32 ``[*b]`` the 1-based first zero pivot (position
    ``k + 1``) or 0 (or the given one), ``perm`` i32 ``[*b, m]`` the row permutation: row ``i`` of the
    factored panel in LAPACK's order is row ``perm[i]`` of ``lu``."""
    shape = panel.shape
    batch, m = shape[:-2], shape[-2]
    j0 = e.scalar(0, "i32") if j0 is None else j0
    ipiv = splat(e, 0, "i32", batch + [steps]) if ipiv is None else ipiv
    info = splat(e, 0, "i32", batch) if info is None else info
    ident = e.iota(batch + [m], len(batch), "i32")
    end = j0 + e.scalar(steps, "i32")
    out = e.while_(
        [j0, panel, ipiv, info, ident, ident],
        lambda k, *_: e.compare("LT", k, end, "SIGNED"),
        lambda k, *carry: _panel_step(e, j0, k, *carry),
    )
    lu, ipiv, info, _, perm = out[1:]
    return [lu, ipiv, info, perm]


def _looped_blocks(e: Emitter, a: V, nb: int, count: int) -> list[V]:
    """The first ``count`` column blocks of width ``nb`` of blocked LU as one ``stablehlo.while`` over the
    blocks, all of one shape (full-height panels, ``triangular_solve`` and ``dot_general`` on every
    column, masked to the trailing ones): a program whose size does not grow with ``n``. Returns
    ``[lu, ipiv (0-based, [*b, min(m, n)], written for the blocks done), info]``."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    zero_i = e.scalar(0, "i32")
    zeros = [zero_i] * r

    def body(blk: V, lu: V, ipiv: V, info: V) -> list[V]:
        j0 = blk * e.scalar(nb, "i32")
        panel = e.dynamic_slice(lu, zeros + [zero_i, j0], batch + [m, nb])
        panel, ipiv, info, perm = _factor_panel(e, panel, nb, j0, ipiv, info)
        lu = _rows_at(e, e.dynamic_update_slice(lu, panel, zeros + [zero_i, j0]), perm)
        j1 = j0 + e.scalar(nb, "i32")
        l11 = e.dynamic_slice(lu, zeros + [j0, j0], batch + [nb, nb])
        a12 = e.dynamic_slice(lu, zeros + [j0, zero_i], batch + [nb, n])
        u12 = e.triangular_solve(l11, a12, left_side=True, lower=True, unit_diagonal=True,
                                 transpose_a=Transpose.NO_TRANSPOSE)
        right = e.compare("GE", e.iota(batch + [nb, n], r + 1, "i32"), e.broadcast_in_dim(j1, batch + [nb, n], []),
                          "SIGNED")
        u12 = e.select(right, u12, splat(e, 0, lu.t, batch + [nb, n]))
        lu = e.dynamic_update_slice(lu, e.select(right, u12, a12), zeros + [j0, zero_i])
        l21 = e.dynamic_slice(lu, zeros + [zero_i, j0], batch + [m, nb])
        below = e.compare("GE", e.iota(batch + [m, nb], r, "i32"), e.broadcast_in_dim(j1, batch + [m, nb], []),
                          "SIGNED")
        l21 = e.select(below, l21, splat(e, 0, lu.t, batch + [m, nb]))
        return [blk + e.scalar(1, "i32"), lu - dot(e, l21, u12, r, r + 1, r), ipiv, info]

    kmax = min(m, n)
    init = [zero_i, a, splat(e, 0, "i32", batch + [kmax]), splat(e, 0, "i32", batch)]
    out = e.while_(init, lambda blk, *_: e.compare("LT", blk, e.scalar(count, "i32"), "SIGNED"), body)
    return out[1:]


def build_getrf(e: Emitter, a: V, block_size: int | None = None, looped: bool = True) -> list[V]:
    """``getrf`` of ``a`` (``[*batch, m, n]``, static shape): ``[lu, ipiv (1-based, i32 [*batch, min(m, n)]),
    info (i32 [*batch])]``.

    Blocked right-looking LU with partial pivoting in column blocks of ``block_size`` (default
    :func:`getrf_block_size`): per block a panel loop (``?getf2``, :func:`_factor_panel`), one ``gather``
    applying its row swaps to the other columns, one ``triangular_solve`` for ``U12`` and one
    ``dot_general`` for the trailing update (see the module docstring). ``info`` is the 1-based index of
    the first exactly zero pivot, 0 if none (LAPACK's ``dgetrf`` documentation).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)
    nb = max(1, int(block_size or getrf_block_size(kmax)))
    if kmax <= nb or 0 in batch or m == 0:
        lu, ipiv, info, perm = _factor_panel(e, a, kmax)
        return [_rows_at(e, lu, perm), ipiv + splat(e, 1, "i32", batch + [kmax]), info]
    full = kmax // nb if looped else 0
    if full:
        lu, ipiv0, info = _looped_blocks(e, a, nb, full)
        ipivs = [e.slice(ipiv0, [0] * r + [0], batch + [full * nb]) + splat(e, 1, "i32", batch + [full * nb])]
    else:
        lu, ipivs, info = a, [], splat(e, 0, "i32", batch)
    start = [0] * r
    for j0 in range(full * nb, kmax, nb):
        jb = min(nb, kmax - j0)
        panel, ipiv, pinfo, perm = _factor_panel(e, e.slice(lu, start + [j0, j0], batch + [m, j0 + jb]), jb)
        ipivs.append(ipiv + splat(e, j0 + 1, "i32", batch + [jb]))
        fresh = e.and_(e.compare("EQ", info, splat(e, 0, "i32", batch), "SIGNED"),
                       e.compare("NE", pinfo, splat(e, 0, "i32", batch), "SIGNED"))
        info = e.select(fresh, pinfo + splat(e, j0, "i32", batch), info)
        # Rows j0: of every column, the panel's factors in place, permuted by one gather (?laswp).
        slab = e.slice(lu, start + [j0, 0], batch + [m, n])
        slab = e.dynamic_update_slice(slab, panel, [e.scalar(0, "i32")] * (r + 1) + [e.scalar(j0, "i32")])
        slab = _rows_at(e, slab, perm)
        if j0 + jb < n:
            l11 = e.slice(slab, start + [0, j0], batch + [jb, j0 + jb])
            u12 = e.triangular_solve(l11, e.slice(slab, start + [0, j0 + jb], batch + [jb, n]),
                                     left_side=True, lower=True, unit_diagonal=True,
                                     transpose_a=Transpose.NO_TRANSPOSE)
            right = u12
            if m - j0 > jb:
                l21 = e.slice(slab, start + [jb, j0], batch + [m - j0, j0 + jb])
                a22 = e.slice(slab, start + [jb, j0 + jb], batch + [m - j0, n])
                right = e.concatenate([u12, a22 - dot(e, l21, u12, r, r + 1, r)], r)
            slab = e.concatenate([e.slice(slab, start + [0, 0], batch + [m - j0, j0 + jb]), right], r + 1)
        lu = e.concatenate([e.slice(lu, start + [0, 0], batch + [j0, n]), slab], r) if j0 else slab
    return [lu, e.concatenate(ipivs, r) if len(ipivs) > 1 else ipivs[0], info]


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
