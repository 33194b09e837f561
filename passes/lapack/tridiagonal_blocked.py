"""Blocked tridiagonal reduction and its back-transformation: LAPACK ``?sytrd`` / ``?hetrd`` with ``?latrd``
panels, ``?ormtr`` / ``?unmtr`` (``side = 'L'``, ``trans = 'N'``) and ``?orgtr`` / ``?ungtr``.

* :func:`sytrd_lower_blocked` -- the reduction of the lower triangle, ``nb`` columns a panel: inside the
  panel the reflector ``v_k`` of the column (updated lazily by the panel's earlier ``V``, ``W``) and
  ``w_k = tau (A - V W^H - W V^H) v_k - (tau / 2) (w^H v_k) v_k``; after the panel one rank-``2 nb`` update
  ``A <- A - V W^H - W V^H`` of the trailing matrix as a ``dot_general`` (Dongarra, Sorensen & Hammarling,
  "Block reduction of matrices to condensed forms for eigenvalue computations", J. Comput. Appl. Math. 27
  (1989); LAPACK's ``dsytrd`` / ``dlatrd`` and ``zhetrd`` / ``zlatrd``). The same reflectors and ``tau`` as
  LAPACK's (to rounding).
* :func:`apply_sytrd_q` -- ``Q c`` for the ``Q`` of a reduction, blocks of reflectors applied last block
  first as compact WY block reflectors ``I - V T V^H`` (Schreiber & Van Loan, SIAM J. Sci. Stat. Comput. 10
  (1989)) with :mod:`.qr`'s ``apply_blocks_last_first``: the reflectors of uplo 'L' are those of
  a QR factorization of the matrix below the first row (LAPACK ``dormtr`` calls ``dormqr`` on ``A(2, 1)``).
* :func:`build_orgtr` -- ``Q`` itself (``Q I``).

Fixed shapes: the blocks run in a few ``stablehlo.while`` loops on shrinking trailing windows (``qr``'s
``segment_runs``), the matrix zero-padded to a whole number of blocks.
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.householder import householder, store_reflector
from hlokit.passes.lapack.matrix import (
    adjoint, column_of, conj, diagonal_of, dot, identity_matrix, pad_dim, put_column, reverse, row_of,
    slice_dim, splat, subdiagonal_of, to_elem, with_entry,
)
from hlokit.passes.lapack.qr import apply_reflectors, segment_runs

__all__ = [
    "SYTRD_BLOCK", "SYTRD_UNBLOCKED", "SYTRD_SEGMENTS", "SYTRD_LARGE", "SYTRD_SEGMENTS_LARGE", "ORMTR_BLOCK", "ORMTR_SEGMENTS",
    "hermitian_from_lower", "sytrd_lower_blocked", "apply_sytrd_q", "build_orgtr",
]

#: The panel width ``nb`` of the blocked reduction (LAPACK's ``ilaenv`` default for ``?sytrd`` is 32).
SYTRD_BLOCK = 32

#: Up to this order :func:`~hlokit.passes.lapack.tridiagonal.build_sytrd` runs the unblocked ``?sytd2``
#: loop; above it :func:`sytrd_lower_blocked` (LAPACK's crossover ``nx`` is 32 too).
SYTRD_UNBLOCKED = 32

#: The blocked reduction's blocks run in this many loops over shrinking trailing windows (each loop adds
#: about 0.3-0.6 s of XLA CPU compile time); above order :data:`SYTRD_LARGE`, :data:`SYTRD_SEGMENTS_LARGE`.
#: Measured (XLA CPU, against single-threaded LAPACK ``dsytrd``; CPU time on a loaded machine): f64 n = 1024
#: 4 / 6 / 8 loops 1.50 / 1.38 / 1.31x; f64 n = 512 1.98 / 1.59 / 1.55x (compile 2.6 / 4.1 / 4.9 s CPU);
#: f32 n = 256 4 and 8 loops equal.
SYTRD_SEGMENTS = 4

#: See :data:`SYTRD_SEGMENTS`.
SYTRD_LARGE = 256

#: See :data:`SYTRD_SEGMENTS`.
SYTRD_SEGMENTS_LARGE = 6

#: The reflectors per block of :func:`apply_sytrd_q`. Measured against LAPACK ``?ormqr`` (XLA CPU, 3 loops):
#: f32 n = 256 blocks of 32 / 64 2.2 / 2.0x; f64 n = 512 1.87 / 1.76x; f64 n = 1024 2.08 / 2.06x (128: 1.61x,
#: but 2.3x at n = 256).
ORMTR_BLOCK = 64

#: The blocks of :func:`apply_sytrd_q` run in this many loops over shrinking row windows. Measured (XLA CPU, ``Q Z``
#: alone, same process, interleaved, best / p10 of 40-100 runs) 3 -> 4 loops: f32 n = 256 0.98 / 1.02 -> 0.86 /
#: 0.96 ms, f64 n = 256 p10 2.08 -> 1.92 ms, f64 n = 512 8.26 / 8.45 -> 7.65 / 8.01 ms, f32 n = 512 equal; compile
#: +0.05 s at most (every block of order 256 has its own exact window).
ORMTR_SEGMENTS = 4


def hermitian_from_lower(e: Emitter, x: V) -> V:
    """The Hermitian matrix whose lower triangle is ``x``'s (``[*b, n, n]``; the diagonal's imaginary part
    dropped). Written ``L + adjoint(S)`` with ``L`` the lower and ``S`` the strictly lower triangle: XLA CPU
    (jaxlib 0.10.2) took 1.6 s to compile ``select(mask, x, transpose(x))`` at order 256 and 6.5 s at 512,
    against 0.06 s for this form (the same values)."""
    shape = x.shape
    r = len(shape) - 2
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    zero = splat(e, 0, x.t, shape)
    lower = e.select(e.compare("GE", rows, cols, "SIGNED"), x, zero)
    strict = e.select(e.compare("GT", rows, cols, "SIGNED"), x, zero)
    return _real_diagonal(e, lower + adjoint(e, strict))


def _real_diagonal(e: Emitter, x: V) -> V:
    """``x`` (``[*b, n, n]``) with the imaginary part of its diagonal dropped (the value itself if real)."""
    if x.t not in COMPLEX_TYPES:
        return x
    shape = x.shape
    r = len(shape) - 2
    eye = e.compare("EQ", e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32"), "SIGNED")
    return e.select(eye, to_elem(e, e.real(x), x.t), x)


def _panel(e: Emitter, x: V, tau: V, j0: V, nb: int) -> tuple[V, V, V]:
    """The ``?latrd`` panel of the window ``x`` (``[*b, w, w]``, Hermitian where it is still to be reduced):
    the reflectors of columns ``j0 .. j0 + nb - 1``. A ``stablehlo.while`` over ``c < nb`` carrying the
    panel's stored columns ``P`` (``[*b, w, nb]``: the updated column with ``beta`` at row ``k + 1`` and
    ``v`` below it, ``k = j0 + c``), ``U = [V W]`` (``[*b, w, 2 nb]``: ``v_k`` in column ``c``, ``w_k`` in
    column ``nb + c``; ``A - V W^H - W V^H = A - U S U^H`` with ``S`` the swap of the halves) and ``tau``
    (``[*b, >= w]``, written at ``k``). Returns ``(P, U, tau)``."""
    shape = x.shape
    r = len(shape) - 2
    batch, w = shape[:r], shape[r]
    t = x.t
    bd = list(range(r))
    vec = batch + [w]
    idx = e.iota(vec, r, "i32")
    zero_vec = splat(e, 0, t, vec)

    def swap(z: V) -> V:  # [*b, 2 nb]: the halves exchanged
        return e.concatenate([slice_dim(e, z, r, nb, 2 * nb), slice_dim(e, z, r, 0, nb)], r)

    def step(c: V, p: V, u: V, tau_: V) -> list[V]:
        k = j0 + c
        k1 = k + e.scalar(1, "i32")
        # column k of A - V W^H - W V^H (the panel's earlier reflectors applied lazily)
        col = column_of(e, x, k) - dot(e, u, conj(e, swap(row_of(e, u, k))), r, r + 1, r)
        if t in COMPLEX_TYPES:  # (?latrd keeps the diagonal real)
            at_k = e.compare("EQ", idx, e.broadcast_in_dim(k, vec, []), "SIGNED")
            col = e.select(at_k, to_elem(e, e.real(col), t), col)
        v, tv, beta = householder(e, col, k1)
        # y = tau (A - V W^H - W V^H) v on the rows below k; w = y - (tau / 2) (y^H v) v. (v is stored in U
        # first: its column adds exact zeros, w_k being still 0, and XLA updates U in place, with no copy.)
        u = put_column(e, u, c, v)
        uhv = conj(e, dot(e, u, conj(e, v), r, r, r))  # U^H v (conjugating the vectors, not U)
        y = dot(e, x, v, r, r + 1, r) - dot(e, u, swap(uhv), r, r + 1, r)
        below = e.compare("GT", idx, e.broadcast_in_dim(k, vec, []), "SIGNED")
        y = e.broadcast_in_dim(tv, vec, bd) * e.select(below, y, zero_vec)
        alpha = splat(e, -0.5, t, batch) * tv * e.reduce_sum(conj(e, y) * v, [r])
        wv = y + e.broadcast_in_dim(alpha, vec, bd) * v
        p = put_column(e, p, c, store_reflector(e, col, k1, v, beta))
        u = put_column(e, u, c + e.scalar(nb, "i32"), wv)
        return [c + e.scalar(1, "i32"), p, u, with_entry(e, tau_, k, tv)]

    out = e.while_([e.scalar(0, "i32"), splat(e, 0, t, batch + [w, nb]), splat(e, 0, t, batch + [w, 2 * nb]), tau],
                   lambda c, *_: e.compare("LT", c, e.scalar(nb, "i32"), "SIGNED"), step)
    return out[1], out[2], out[3]


def sytrd_lower_blocked(e: Emitter, a: V, block_size: int | None = None,
                        segments: int | None = None) -> list[V]:
    """Blocked ``?sytrd`` / ``?hetrd`` (uplo 'L') of the Hermitian matrix ``a`` (``[*b, n, n]``, ``n >= 2``;
    both triangles read: pass :func:`hermitian_from_lower` of a one-triangle input; a complex diagonal's
    imaginary part is ignored). Returns ``[x, d, e, tau]``: ``x`` ``[*b, n, n]`` with ``d`` on the diagonal
    and ``e`` and the Householder vectors below it as LAPACK stores them (column ``k``: ``e[k]`` at row
    ``k + 1``, ``v_k`` below, its leading 1 implicit; ``Q = H_0 ... H_{n-2}``, ``H_k = I - tau_k v_k
    v_k^H``, ``Q^H A Q = T``); above the diagonal ``x`` holds unspecified values. ``d`` ``[*b, n]`` and
    ``e`` ``[*b, n - 1]`` real, ``tau`` ``[*b, n - 1]`` of ``a``'s type.

    LAPACK's blocked ``?sytrd`` (Dongarra, Sorensen & Hammarling 1989): per panel of ``nb`` (default
    :data:`SYTRD_BLOCK`) columns the ``?latrd`` loop (:func:`_panel`: one matrix-vector ``dot_general``
    with the trailing window and four of order ``nb`` per column), then ``A - [V W] [W V]^H`` as one
    ``dot_general`` on the window less its first ``nb`` rows and columns, a static slice (the panel at
    window offset ``j0`` changes rows and columns ``> j0`` only; what the slice leaves out of the update
    or adds to it is the panel's own columns, stored afterwards, and entries above the diagonal of
    reduced rows, which nothing reads again: 30 % fewer update flops at order 256; same-process A/B of the
    reduction alone, f32 n = 256 2.00 -> 1.85 ms, f64 n = 256 3.45 -> 3.15 ms, f32 n = 512 10.1 -> 9.4 ms).
    The blocks run in ``segments`` (default :data:`SYTRD_SEGMENTS`, above order :data:`SYTRD_LARGE`
    :data:`SYTRD_SEGMENTS_LARGE`) ``stablehlo.while`` loops, each on the trailing window ``A[J:, J:]`` where
    its first block starts; the matrix is zero-padded to whole blocks (zero columns give ``tau = 0``).
    Accuracy: backward stable, ``||Q^H A Q - T|| <= c n eps ||A||`` (Golub & Van Loan, *Matrix Computations*,
    4th ed., §8.3.1); the reflectors equal LAPACK's (unblocked or blocked) up to rounding.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    nb = max(1, min(int(block_size or SYTRD_BLOCK), n))
    count = -(-n // nb)
    size = count * nb
    x = _real_diagonal(e, a)
    if size > n:
        x = pad_dim(e, pad_dim(e, x, r, size - n), r + 1, size - n)
    zero_i = e.scalar(0, "i32")
    strips, taus = [], []
    segments = segments or (SYTRD_SEGMENTS if n <= SYTRD_LARGE else SYTRD_SEGMENTS_LARGE)
    pieces = segment_runs(count, int(segments))
    start = 0  # x is the window x[start:, start:] of the padded matrix
    for i, (first, number) in enumerate(pieces):
        big = first * nb
        if big > start:
            x = e.slice(x, [0] * r + [big - start, big - start], batch + [size - start, size - start])
            start = big
        w = size - big
        wshape = batch + [w, w]

        def body(blk: V, xw: V, tw: V) -> list[V]:
            j0 = blk * e.scalar(nb, "i32")
            p, u, tw = _panel(e, xw, tw, j0, nb)
            if w > nb:  # the update A[nb:, nb:] -= [V W] [W V]^H (see the docstring)
                swapped = e.concatenate([slice_dim(e, u, r + 1, nb, 2 * nb), slice_dim(e, u, r + 1, 0, nb)], r + 1)
                lo = e.scalar(nb, "i32")
                trail = e.slice(xw, [0] * r + [nb, nb], wshape)
                trail = trail - dot(e, slice_dim(e, u, r, nb, w), conj(e, slice_dim(e, swapped, r, nb, w)),
                                    r, r + 1, r + 1)
                xw = e.dynamic_update_slice(xw, _real_diagonal(e, trail), [zero_i] * r + [lo, lo])
            xw = e.dynamic_update_slice(xw, p, [zero_i] * (r + 1) + [j0])
            return [blk + e.scalar(1, "i32"), xw, tw]

        _, x, tw = e.while_([zero_i, x, splat(e, 0, t, batch + [number * nb])],
                            lambda blk, *_, number=number: e.compare(
                                "LT", blk, e.scalar(number, "i32"), "SIGNED"), body)
        assert x.shape == wshape
        end = pieces[i + 1][0] * nb if i + 1 < len(pieces) else size
        strip = slice_dim(e, x, r + 1, 0, end - big)
        if big:
            strip = e.concatenate([splat(e, 0, t, batch + [big, end - big]), strip], r)
        strips.append(strip)
        taus.append(tw)
    packed = e.concatenate(strips, r + 1) if len(strips) > 1 else strips[0]
    packed = e.slice(packed, [0] * (r + 2), batch + [n, n])
    tau = slice_dim(e, e.concatenate(taus, r) if len(taus) > 1 else taus[0], r, 0, n - 1)
    diag = diagonal_of(e, packed)
    sub = slice_dim(e, subdiagonal_of(e, packed), r, 1, n)
    if t in COMPLEX_TYPES:
        diag, sub = e.real(diag), e.real(sub)
    return [packed, diag, sub, tau]


def apply_sytrd_q(e: Emitter, packed: V, tau: V, c: V, lower: bool, block_size: int | None = None,
                  segments: int | None = None) -> V:
    """``Q c`` (LAPACK ``?ormtr`` / ``?unmtr`` with ``side = 'L'``, ``trans = 'N'``) for the ``Q`` of a
    tridiagonal reduction: ``packed`` ``[*b, n, n]`` and ``tau`` ``[*b, n - 1]`` as ``?sytrd`` /
    ``?hetrd`` return them (:func:`~hlokit.passes.lapack.tridiagonal.build_sytrd`; ``lower``: uplo 'L',
    ``Q = H_0 ... H_{n-2}`` with ``v_k`` below row ``k + 1`` of column ``k``; else uplo 'U', ``Q = H_{n-2}
    ... H_0`` with ``v_k`` above row ``k`` of column ``k + 1``); ``c`` ``[*b, n, m]`` of ``packed``'s element
    type (a real ``c`` with a complex ``packed`` is converted). Returns ``[*b, n, m]``.

    Row 0 (uplo 'L') is untouched and the reflectors are those of a QR factorization of ``packed[1:, :n-1]``
    (LAPACK ``dormtr`` -> ``dormqr``): blocks of ``nb`` (default :data:`ORMTR_BLOCK`) reflectors, last block
    first, each as ``I - V T V^H`` (:func:`.qr.apply_blocks_last_first`: ``T^-1`` from one ``dot_general``,
    then two ``dot_general``s and a ``triangular_solve`` of order ``nb``), in ``segments``
    (default :data:`ORMTR_SEGMENTS`) loops on shrinking row windows (block ``j`` changes rows ``>= j nb + 1``
    only). uplo 'U' is uplo 'L' of the reduction with rows and columns reversed. Accuracy: ``Q`` is
    orthonormal to ``c n eps`` and the product backward stable (Golub & Van Loan, §5.1.6).
    """
    shape = packed.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = packed.t
    if c.t != t:
        c = to_elem(e, c, t)
    if n < 2 or 0 in batch or c.shape[r + 1] == 0:
        return c
    if not lower:
        flipped = apply_sytrd_q(e, reverse(e, packed, [r, r + 1]), reverse(e, tau, [r]), reverse(e, c, [r]),
                                True, block_size, segments)
        return reverse(e, flipped, [r])
    k = n - 1
    a1 = e.slice(packed, [0] * r + [1, 0], batch + [n, k])  # reflector j: column j from row j
    c1 = apply_reflectors(e, a1, tau, slice_dim(e, c, r, 1, n), int(block_size or ORMTR_BLOCK),
                          int(segments or ORMTR_SEGMENTS))
    return e.concatenate([slice_dim(e, c, r, 0, 1), c1], r)


def build_orgtr(e: Emitter, packed: V, tau: V, lower: bool) -> V:
    """``Q`` (``[*b, n, n]``) of a tridiagonal reduction (LAPACK ``?orgtr`` / ``?ungtr``): :func:`apply_sytrd_q`
    of the identity (same arguments and accuracy)."""
    return apply_sytrd_q(e, packed, tau, identity_matrix(e, packed.shape, packed.t), lower)
