"""LU factorization with partial pivoting: LAPACK ``getrf`` as a blocked, right-looking algorithm.

:func:`build_getrf` gives LAPACK's factors, 1-based pivots and ``info``. Rows are never moved while a
window is factored: the loops carry each stored row's position after LAPACK's swaps (``pos``) and its
inverse (``perm``), and one ``gather`` per window puts the rows in LAPACK's order at the end. The columns
are taken in blocks of ``nb`` (:func:`getrf_block_size`); block ``j`` (pivot positions ``j0 .. j0 + nb``) is

1. the **panel** (the block's columns, all rows) factored by the unblocked right-looking ``?getf2``
   (:func:`_column_loop`, a ``stablehlo.while`` over its columns, :func:`_panel_step`): the pivot is the
   first maximum of ``|x|`` (``|re| + |im|`` for complex, as LAPACK's ``i?amax``) among the rows not done,
   the pivot row is read by a ``gather`` (it differs per batch element), ``info`` is the 1-based index of
   the first exactly zero pivot (whose column is then left unscaled); a panel wider than ``LEAF`` columns
   is itself blocked (:func:`_factor_block`: the column loop on ``LEAF`` columns, then step 2 on the rest
   of the panel);
2. the columns right of the block updated (:func:`_update_right`): the ``nb`` pivot rows gathered (LAPACK
   ``?laswp``), ``U12 = L11^-1 A12`` by one ``stablehlo.triangular_solve`` (``?trsm``), then one
   ``dot_general`` (``?gemm``) subtracts ``L21 U12`` from the rows below and ``(L11 - I) U12`` from the
   pivot rows (which turns them into ``U12``), the rows done and the columns left masked.

The whole blocks run in ``SEGMENTS`` ``stablehlo.while`` loops (:func:`_window`), each on the trailing
window ``A[J:, J:]`` where its first block starts (rows in LAPACK's order there), so the products shrink
with the matrix while each loop keeps one shape and the program, and XLA's compile time, do not grow with
``n``; the ``min(m, n) mod nb`` columns left over are one more block of static shape, and a matrix with
``min(m, n) <= nb`` is one column loop. The blocked algorithm performs the same eliminations in another
order, so its pivots are those of ``?getf2`` up to rounding.
Sources: LAPACK's ``dgetrf`` / ``dgetf2`` / ``dlaswp`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §3.4 (Alg. 3.4.1 and the block version §3.4.7 "Block Gaussian elimination"); XLA's
``xla/hlo/builder/lib/lu_decomposition.cc`` and JAX's ``_lu_blocked`` in ``jax/_src/lax/linalg.py`` are the
counterparts elsewhere. The numpy mirror of ``?getf2`` used by the tests is
``tests/pytest/lapack_reference.py`` (``getrf``).
"""

from __future__ import annotations

import math

from hlokit.dtypes import ELEMENT_TYPES
from hlokit.passes.builder import COMPLEX_TYPES, Emitter, Transpose, UnsupportedError, V
from hlokit.passes.lapack.matrix import dot, reduce_with, splat

__all__ = ["build_getrf", "getrf_block_size", "build_lu_pivots_to_permutation"]


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


#: Column block ``nb`` of the block loops.
BLOCK = 32
#: From ``min(m, n) = WIDE_MIN`` on, f64 and complex elements take blocks of ``WIDE_BLOCK``.
WIDE_MIN = 768
WIDE_BLOCK = 64
#: Width ``w`` of the column loop inside a block wider than it (a ``dot_general`` updates the rest of the
#: block after each ``w`` columns).
LEAF = 32
#: The whole blocks run in this many ``stablehlo.while`` loops, each on the trailing window where it starts.
SEGMENTS = 3


def getrf_block_size(k: int, elem: str = "f32") -> int:
    """The column block ``nb`` of :func:`build_getrf` for a matrix with ``min(m, n) = k`` of element type
    ``elem``: ``BLOCK`` (32), for f64 and complex from ``k = WIDE_MIN`` (768) on ``WIDE_BLOCK`` (64, two
    column loops of ``LEAF`` columns), or ``k`` itself when it is not larger (the whole matrix one column
    loop, ``?getf2``). A narrower block makes more passes of the trailing update over the window
    (bandwidth-bound in f64), a wider one a longer column loop over wider rows and more code to compile.
    Measured on XLA CPU (2 shared cores, best of 12-40 interleaved runs), f64 blocks of 32 against 64:
    n = 256: 1.97 / 2.53 ms, n = 512: 12.5 / 13.3 ms, n = 1024: 82 / 73 ms; f32 blocks of 64 (two loops of
    32) ran no faster than blocks of 32."""
    big = ELEMENT_TYPES[elem].dtype.itemsize >= 8 if elem in ELEMENT_TYPES else True
    nb = WIDE_BLOCK if big and k >= WIDE_MIN else BLOCK
    return nb if k > nb else max(k, 1)


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


def _column_loop(e: Emitter, x: V, q0: V, steps: int, ipiv: V, info: V, pos: V, perm: V) -> list[V]:
    """``?getf2`` on ``x`` (``[*b, m, w]``, rows in place) for the pivot positions ``q0 .. q0 + steps`` (column
    ``c`` of ``x`` is position ``q0 + c``): a ``stablehlo.while`` of :func:`_panel_step`. Returns
    ``[x, ipiv, info, pos, perm]``."""
    end = q0 + e.scalar(steps, "i32")
    out = e.while_([q0, x, ipiv, info, pos, perm], lambda k, *_: e.compare("LT", k, end, "SIGNED"),
                   lambda k, *carry: _panel_step(e, q0, k, *carry))
    return out[1:]


def _update_right(e: Emitter, x: V, c: V, q0: V, b: int, pos: V, perm: V) -> V:
    """``x`` (``[*b, m, nx]``, rows in place) after its factored column block ``x[..., c:c+b]`` (pivot
    positions ``q0 .. q0 + b``; ``perm`` i32 ``[*b, m]`` the stored row at each position, ``pos`` its
    inverse) is applied to the columns right of it: the pivot rows gathered (``?laswp``), ``U12 = L11^-1 A12``
    by one ``triangular_solve`` (``?trsm``), and every row not done updated by one ``dot_general``
    (``?gemm``): the rows below by ``L21 U12``, the pivot rows by the strictly lower part of ``L11``
    (``A12 - (L11 - I) U12 = U12``), with the columns of ``U12`` left of ``c + b`` zero."""
    shape = x.shape
    r = len(shape) - 2
    batch, m, nx = shape[:r], shape[r], shape[r + 1]
    zero_i = e.scalar(0, "i32")
    zb = [zero_i] * r
    rows = _rows_at(e, x, e.dynamic_slice(perm, zb + [q0], batch + [b]))  # [*b, b, nx]
    l11 = e.dynamic_slice(rows, zb + [zero_i, c], batch + [b, b])
    u12 = e.triangular_solve(l11, rows, left_side=True, lower=True, unit_diagonal=True,
                             transpose_a=Transpose.NO_TRANSPOSE)
    c1 = c + e.scalar(b, "i32")
    right = e.compare("GE", e.iota(batch + [b, nx], r + 1, "i32"), e.broadcast_in_dim(c1, batch + [b, nx], []),
                      "SIGNED")
    u12 = e.select(right, u12, splat(e, 0, x.t, batch + [b, nx]))
    fac = e.dynamic_slice(x, zb + [zero_i, c], batch + [m, b])
    # Row i takes L's column t where its position is past pivot q0 + t.
    past = e.compare("GT", e.broadcast_in_dim(pos, batch + [m, b], list(range(r + 1))),
                     e.iota(batch + [m, b], r + 1, "i32") + e.broadcast_in_dim(q0, batch + [m, b], []), "SIGNED")
    l21 = e.select(past, fac, splat(e, 0, x.t, batch + [m, b]))
    live = e.and_(e.compare("GE", e.broadcast_in_dim(pos, shape, list(range(r + 1))),
                            e.broadcast_in_dim(q0, shape, []), "SIGNED"),
                  e.compare("GE", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(c1, shape, []), "SIGNED"))
    return e.select(live, x - dot(e, l21, u12, r, r + 1, r), x)


def _factor_block(e: Emitter, x: V, c: V, nb: int, w: int, ipiv: V, info: V, pos: V, perm: V) -> list[V]:
    """The column block ``x[..., c:c+nb]`` (pivot positions ``c .. c + nb``) of the window ``x`` (rows in
    place) factored: a ``stablehlo.while`` over its ``nb / LEAF`` sub-blocks, each by the column loop
    (:func:`_column_loop`) and applied to the rest of the block (:func:`_update_right`). Returns
    ``[x, ipiv, info, pos, perm]``."""
    shape = x.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    zero_i = e.scalar(0, "i32")
    zb = [zero_i] * r
    whole = nb == shape[-1]  # the block is all of x (a dynamic_slice of every column would clamp c to 0)
    panel = x if whole else e.dynamic_slice(x, zb + [zero_i, c], batch + [m, nb])
    if w >= nb or nb % w:
        panel, ipiv, info, pos, perm = _column_loop(e, panel, c, nb, ipiv, info, pos, perm)
    else:
        def body(s: V, panel: V, ipiv: V, info: V, pos: V, perm: V) -> list[V]:
            cw = s * e.scalar(w, "i32")
            leaf = e.dynamic_slice(panel, zb + [zero_i, cw], batch + [m, w])
            leaf, ipiv, info, pos, perm = _column_loop(e, leaf, c + cw, w, ipiv, info, pos, perm)
            panel = e.dynamic_update_slice(panel, leaf, zb + [zero_i, cw])
            panel = _update_right(e, panel, cw, c + cw, w, pos, perm)
            return [s + e.scalar(1, "i32"), panel, ipiv, info, pos, perm]

        count = e.scalar(nb // w, "i32")
        out = e.while_([zero_i, panel, ipiv, info, pos, perm],
                       lambda s, *_: e.compare("LT", s, count, "SIGNED"), body)
        panel, ipiv, info, pos, perm = out[1:]
    return [panel if whole else e.dynamic_update_slice(x, panel, zb + [zero_i, c]), ipiv, info, pos, perm]


def _window(e: Emitter, x: V, nb: int, count: int, tail: int) -> list[V]:
    """Blocked LU of the first ``count * nb + tail`` columns of the window ``x`` (``[*b, m, n]``): a
    ``stablehlo.while`` over ``count`` blocks of ``nb`` (:func:`_factor_block`, then :func:`_update_right`
    on the window), then a static ``tail`` block, rows in place throughout. Returns ``[x (rows still in
    place), ipiv (0-based window positions, [*b, count * nb + tail]), info (1-based window column or 0),
    perm]``."""
    shape = x.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    zero_i = e.scalar(0, "i32")
    ident = e.iota(batch + [m], r, "i32")
    state = [x, splat(e, 0, "i32", batch + [count * nb + tail]), splat(e, 0, "i32", batch), ident, ident]
    if count:
        def body(blk: V, x: V, ipiv: V, info: V, pos: V, perm: V) -> list[V]:
            c = blk * e.scalar(nb, "i32")
            x, ipiv, info, pos, perm = _factor_block(e, x, c, nb, LEAF, ipiv, info, pos, perm)
            return [blk + e.scalar(1, "i32"), _update_right(e, x, c, c, nb, pos, perm), ipiv, info, pos, perm]

        out = e.while_([zero_i, *state], lambda blk, *_: e.compare("LT", blk, e.scalar(count, "i32"), "SIGNED"),
                       body)
        state = out[1:]
    if tail:
        c = e.scalar(count * nb, "i32")
        x, ipiv, info, pos, perm = _factor_block(e, state[0], c, tail, tail, *state[1:])
        if shape[r + 1] > count * nb + tail:
            x = _update_right(e, x, c, c, tail, pos, perm)
        state = [x, ipiv, info, pos, perm]
    x, ipiv, info, _, perm = state
    return [x, ipiv, info, perm]


def build_getrf(e: Emitter, a: V, block_size: int | None = None) -> list[V]:
    """``getrf`` of ``a`` (``[*batch, m, n]``, static shape, f32 / f64 / complex): ``[lu, ipiv (1-based, i32
    [*batch, min(m, n)]), info (i32 [*batch])]``.

    Blocked right-looking LU with partial pivoting in column blocks of ``block_size`` (default
    :func:`getrf_block_size`), rows left in place inside each of ``SEGMENTS`` windows (see the module
    docstring). ``info`` is the 1-based index of the first exactly zero pivot, 0 if none (LAPACK's
    ``dgetrf`` documentation). The pivots are LAPACK's up to rounding ties; the factors satisfy LAPACK's
    backward-error bound ``|P A - L U| <= c n eps |L| |U|`` (Higham, *Accuracy and Stability of Numerical
    Algorithms*, Thm 9.3).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)
    if kmax == 0 or 0 in batch:
        return [a, splat(e, 0, "i32", batch + [kmax]), splat(e, 0, "i32", batch)]
    nb = max(1, int(block_size or getrf_block_size(kmax, a.t)))
    full, tail = divmod(kmax, nb) if kmax > nb else (0, kmax)
    segs = max(1, min(SEGMENTS, full))
    counts = [full * (s + 1) // segs - full * s // segs for s in range(segs)]
    z = [0] * r
    ipivs, info = [], splat(e, 0, "i32", batch)
    zero = splat(e, 0, "i32", batch)
    j = 0
    for s, count in enumerate(counts):
        last = s == len(counts) - 1
        win = e.slice(a, z + [j, j], batch + [m, n]) if j else a
        x, ipiv, winfo, perm = _window(e, win, nb, count, tail if last else 0)
        width = count * nb + (tail if last else 0)
        x = _rows_at(e, x, perm)
        if j:  # the L columns left of the window take its row swaps (?laswp)
            left = _rows_at(e, e.slice(a, z + [j, 0], batch + [m, j]), perm)
            x = e.concatenate([e.slice(a, z + [0, 0], batch + [j, n]), e.concatenate([left, x], r + 1)], r)
        a = x
        ipivs.append(ipiv + splat(e, j + 1, "i32", batch + [width]))
        if j:  # the first window's info is the matrix's; a later one counts only where none came before
            fresh = e.and_(e.compare("EQ", info, zero, "SIGNED"), e.compare("NE", winfo, zero, "SIGNED"))
            info = e.select(fresh, winfo + splat(e, j, "i32", batch), info)
        else:
            info = winfo
        j += width
    return [a, e.concatenate(ipivs, r) if len(ipivs) > 1 else ipivs[0], info]


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
