"""The SVD by LAPACK ``?gesdd``'s route: reduction to upper bidiagonal form (``?gebrd`` with ``?labrd`` panels),
the bidiagonal divide and conquer (``?bdsdc``) and the back-transformations (``?ormbr``, ``side = 'L'``,
``trans = 'N'``, both ``vect``).

* :func:`gebrd_blocked` -- ``Q^H A P = B`` for ``A`` ``[*b, m, n]`` with ``m >= n``: ``B`` upper bidiagonal
  with real diagonal ``d`` and superdiagonal ``e``, ``Q = H_0 ... H_{n-1}`` (``H_k = I - tauq_k v_k v_k^H``,
  ``v_k`` zero above row ``k``, 1 at it) and ``P = G_0 ... G_{n-2}`` (``G_k = I - taup_k u_k u_k^H``, ``u_k``
  zero before column ``k + 1``, 1 at it). Per panel of ``nb`` columns the ``?labrd`` loop keeps the panel's
  updates lazy -- the trailing matrix is ``A - V Y^H - X U^H`` with ``V`` / ``U`` the panel's left / right
  reflectors and ``Y = tauq (A - ...)^H v``, ``X = taup (A - ...) u`` -- so each column costs two
  matrix-vector ``dot_general`` ops with the trailing window (``A^H v``, ``A u``) and a few of order
  ``nb``; after the panel one rank-``2 nb`` update ``A - [V X] [Y U]^H`` as one ``dot_general`` (Dongarra,
  Sorensen & Hammarling, "Block reduction of matrices to condensed forms for eigenvalue computations",
  J. Comput. Appl. Math. 27 (1989); LAPACK's ``dgebrd`` / ``dlabrd`` and ``zgebrd`` / ``zlabrd``; Golub &
  Van Loan, *Matrix Computations*, 4th ed., §5.4.8).
* :func:`apply_gebrd_q` / :func:`apply_gebrd_p` -- ``Q c`` and ``P c`` as compact WY block reflectors
  (:func:`.qr.apply_reflectors`): ``Q``'s reflectors are stored as ``?geqrf`` stores them, ``P``'s are those
  of a QR factorization of ``A[:, 1:]^T`` (LAPACK ``dormbr`` calls ``dormqr`` / ``dormlq``).
* :func:`bidiagonal_svd` -- the SVD of a real upper bidiagonal matrix by divide and conquer (LAPACK
  ``dbdsdc`` / ``dlasd0`` .. ``dlasd8``; M. Gu and S. C. Eisenstat, "A divide-and-conquer algorithm for the
  bidiagonal SVD", SIAM J. Matrix Anal. Appl. 16, 1995), each merge level for all its subproblems at once on
  :mod:`.stedc`'s merge of ``diag(S)^2 + z z^T``.
* :func:`bidiagonal_svd_tall` -- the three together: ``A = (Q U_B) S (P V_B)^H``.

Fixed shapes: the blocks run in a few ``stablehlo.while`` loops on shrinking trailing windows
(:func:`.qr.segment_runs`), the matrix zero-padded to a whole number of blocks (a zero column or row gives
``tau = 0``); the divide and conquer pads its order to leaves times a power of two. ``docs/lapack.md``
(issue 40, eighth round) measures the route against LAPACK and against the QDWH-SVD.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack import jacobi, stedc
from hlokit.passes.lapack.householder import householder, store_reflector
from hlokit.passes.lapack.matrix import (
    column_of, conj, diagonal_of, dot, finfo, identity_matrix, pad_dim, put_column, reduce_with, reverse, row_of, slice_dim, splat,
    superdiagonal_of, to_elem, with_entry,
)
from hlokit.passes.lapack.qr import apply_reflectors, segment_runs

__all__ = ["GEBRD_BLOCK", "GEBRD_SEGMENTS", "SVD_PAD", "gebrd_blocked", "apply_gebrd_q", "apply_gebrd_p", "bidiagonal_svd",
           "bidiagonal_svd_tall"]

#: The panel width ``nb`` (LAPACK's ``ilaenv`` default for ``?gebrd`` is 32).
GEBRD_BLOCK = 32

#: The blocks run in this many ``stablehlo.while`` loops over shrinking trailing windows.
GEBRD_SEGMENTS = 4

#: The reflectors per block of :func:`apply_gebrd_q` / :func:`apply_gebrd_p` and their loops (as
#: ``tridiagonal_blocked.ORMTR_BLOCK`` / ``ORMTR_SEGMENTS``).
ORMBR_BLOCK = 64
ORMBR_SEGMENTS = 4


def _panel(e: Emitter, x: V, tq: V, tp: V, j0: V, nb: int) -> list[V]:
    """The ``?labrd`` panel of the window ``x`` (``[*b, M, N]``, ``M >= N``): the reflectors of columns and
    rows ``j0 .. j0 + nb - 1``. A ``stablehlo.while`` over ``c < nb`` (``k = j0 + c``) carrying ``PC``
    (``[*b, M, nb]``: the updated column ``k`` with ``d_k`` at row ``k`` and ``v_k`` below), ``PR``
    (``[*b, N, nb]``: the updated row ``k`` with ``e_k`` at column ``k + 1`` and ``u_k`` after it),
    ``VX = [V X]`` (``[*b, M, 2 nb]``), ``YU = [Y U]`` (``[*b, N, 2 nb]``; the trailing matrix is ``A - VX
    YU^H``) and the ``tauq`` / ``taup`` vectors (written at ``k``). Returns ``[PC, PR, VX, YU, tq, tp]``."""
    shape = x.shape
    r = len(shape) - 2
    batch, mm, nn = shape[:r], shape[r], shape[r + 1]
    t = x.t
    bd = list(range(r))
    rows_i, cols_i = e.iota(batch + [mm], r, "i32"), e.iota(batch + [nn], r, "i32")
    i32 = lambda k: e.scalar(k, "i32")  # noqa: E731

    def step(c: V, pc: V, pr: V, vx: V, yu: V, tq_: V, tp_: V) -> list[V]:
        k = j0 + c
        k1 = k + i32(1)
        # column k of A - VX YU^H; its reflector H_k (v in V's column c; Y's column c is still zero)
        col = column_of(e, x, k) - dot(e, vx, conj(e, row_of(e, yu, k)), r, r + 1, r)
        v, tauq, dk = householder(e, col, k)
        pc = put_column(e, pc, c, store_reflector(e, col, k, v, dk))
        vx = put_column(e, vx, c, v)
        # y = tauq (A - VX YU^H)^H v on the columns after k
        y = dot(e, conj(e, x), v, r, r, r) - dot(e, yu, dot(e, conj(e, vx), v, r, r, r), r, r + 1, r)
        after = e.compare("GT", cols_i, e.broadcast_in_dim(k, batch + [nn], []), "SIGNED")
        y = e.select(after, y * e.broadcast_in_dim(tauq, batch + [nn], bd), splat(e, 0, t, batch + [nn]))
        yu = put_column(e, yu, c, y)
        # row k of A - VX YU^H (with y); its reflector G_k from the conjugated row (u in U's column c)
        row = row_of(e, x, k) - dot(e, conj(e, yu), row_of(e, vx, k), r, r + 1, r)
        u, taup, ek = householder(e, conj(e, row), k1)
        pr = put_column(e, pr, c, store_reflector(e, row, k1, u, ek))
        yu = put_column(e, yu, c + i32(nb), u)
        # x = taup (A - VX YU^H) u on the rows after k (X's column c is still zero)
        xv = dot(e, x, u, r, r + 1, r) - dot(e, vx, dot(e, conj(e, yu), u, r, r, r), r, r + 1, r)
        below = e.compare("GT", rows_i, e.broadcast_in_dim(k, batch + [mm], []), "SIGNED")
        xv = e.select(below, xv * e.broadcast_in_dim(taup, batch + [mm], bd), splat(e, 0, t, batch + [mm]))
        vx = put_column(e, vx, c + i32(nb), xv)
        return [c + i32(1), pc, pr, vx, yu, with_entry(e, tq_, k, tauq), with_entry(e, tp_, k, taup)]

    init = [i32(0), splat(e, 0, t, batch + [mm, nb]), splat(e, 0, t, batch + [nn, nb]),
            splat(e, 0, t, batch + [mm, 2 * nb]), splat(e, 0, t, batch + [nn, 2 * nb]), tq, tp]
    out = e.while_(init, lambda c, *_: e.compare("LT", c, i32(nb), "SIGNED"), step)
    return out[1:]


def gebrd_blocked(e: Emitter, a: V, block_size: int | None = None, segments: int | None = None) -> list[V]:
    """Blocked ``?gebrd`` of ``a`` (``[*b, m, n]``, ``m >= n >= 1``; f32, f64, complex<f32>, complex<f64>):
    ``[x, d, e, tauq, taup]`` as LAPACK returns them for ``m >= n`` -- ``x`` ``[*b, m, n]`` with ``d`` on the
    diagonal and ``v_k`` below it (column ``k``; its leading 1 implicit), ``e`` on the superdiagonal and
    ``u_k`` right of it (row ``k``); ``d`` ``[*b, n]`` and ``e`` ``[*b, n - 1]`` real; ``tauq`` ``[*b, n]``,
    ``taup`` ``[*b, n]`` (``taup[n-1] = 0``) of ``a``'s type; ``Q^H A P = B`` (module docstring). For complex
    ``a``, ``u_k`` is stored as computed (LAPACK ``zgebrd`` stores its conjugate); :func:`apply_gebrd_p`
    reads it so. Raises ``ValueError`` for ``m < n``.

    Per panel of ``nb`` (default :data:`GEBRD_BLOCK`) columns the ``?labrd`` loop (:func:`_panel`), then
    ``A - [V X] [Y U]^H`` as one ``dot_general`` on the window less its first ``nb`` rows and columns (a
    static slice, as in ``tridiagonal_blocked.sytrd_lower_blocked``: the rows and columns of earlier panels
    that it includes get exact zeros, the panel's own are stored afterwards); ``segments`` (default
    :data:`GEBRD_SEGMENTS`) loops on shrinking windows. Accuracy: backward stable, ``||Q^H A P - B|| <= c n
    eps ||A||`` (Golub & Van Loan, §5.4.8); the reflectors equal LAPACK's up to rounding (and, for complex
    ``a``, the conjugation of ``u_k``).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    if m < n:
        raise ValueError(f"gebrd_blocked needs m >= n, got {m} x {n}")
    t = a.t
    nb = max(1, min(int(block_size or GEBRD_BLOCK), n))
    count = -(-n // nb)
    size = count * nb
    x = a
    if size > n:
        x = pad_dim(e, pad_dim(e, x, r, size - n), r + 1, size - n)
    rows_total = m + size - n
    bd = list(range(r))
    zero_i = e.scalar(0, "i32")
    strips, tqs, tps = [], [], []
    start = 0  # x is the window x[start:, start:] of the padded matrix
    pieces = segment_runs(count, int(segments or GEBRD_SEGMENTS))
    for i, (first, number) in enumerate(pieces):
        big = first * nb
        if big > start:
            x = e.slice(x, [0] * r + [big - start, big - start], batch + [rows_total - start, size - start])
            start = big
        wm, wn = rows_total - big, size - big
        wshape = batch + [wm, wn]

        def body(blk: V, xw: V, tq: V, tp: V) -> list[V]:
            j0 = blk * e.scalar(nb, "i32")
            pc, pr, vx, yu, tq, tp = _panel(e, xw, tq, tp, j0, nb)
            if wn > nb:  # the trailing update A[nb:, nb:] -= [V X] [Y U]^H
                trail = e.slice(xw, [0] * r + [nb, nb], wshape)
                trail = trail - dot(e, slice_dim(e, vx, r, nb, wm), conj(e, slice_dim(e, yu, r, nb, wn)),
                                    r, r + 1, r + 1)
                lo = e.scalar(nb, "i32")
                xw = e.dynamic_update_slice(xw, trail, [zero_i] * r + [lo, lo])
            # the panel's columns from their diagonal down, its rows from their superdiagonal on
            ri, ci = e.iota(wshape, r, "i32"), e.iota(wshape, r + 1, "i32")
            j0b = e.broadcast_in_dim(j0, wshape, [])
            in_cols = e.and_(e.compare("GE", ci, j0b, "SIGNED"), e.compare("LT", ci, j0b + nb, "SIGNED"))
            in_rows = e.and_(e.compare("GE", ri, j0b, "SIGNED"), e.compare("LT", ri, j0b + nb, "SIGNED"))
            by_col = e.and_(in_cols, e.compare("GE", ri, ci, "SIGNED"))
            by_row = e.and_(in_rows, e.compare("LT", ri, ci, "SIGNED"))
            xw = e.select(by_col, e.dynamic_update_slice(xw, pc, [zero_i] * (r + 1) + [j0]), xw)
            prt = e.transpose(pr, bd + [r + 1, r])  # [*b, nb, N]
            xw = e.select(by_row, e.dynamic_update_slice(xw, prt, [zero_i] * r + [j0, zero_i]), xw)
            return [blk + e.scalar(1, "i32"), xw, tq, tp]

        tq0, tp0 = splat(e, 0, t, batch + [number * nb]), splat(e, 0, t, batch + [number * nb])
        _, x, tq, tp = e.while_([zero_i, x, tq0, tp0],
                                lambda blk, *_, number=number: e.compare(
                                    "LT", blk, e.scalar(number, "i32"), "SIGNED"), body)
        end = pieces[i + 1][0] * nb if i + 1 < len(pieces) else size
        # this loop's finished columns (rows big .. ) and rows (columns big .. ) of the padded matrix
        strips.append((big, end, x))
        tqs.append(tq)
        tps.append(tp)
    packed = _assemble(e, strips, batch, rows_total, size)
    packed = e.slice(packed, [0] * (r + 2), batch + [m, n])
    tauq = slice_dim(e, e.concatenate(tqs, r) if len(tqs) > 1 else tqs[0], r, 0, n)
    taup = slice_dim(e, e.concatenate(tps, r) if len(tps) > 1 else tps[0], r, 0, n)
    sq = slice_dim(e, packed, r, 0, n)
    d = diagonal_of(e, sq)
    sup = slice_dim(e, superdiagonal_of(e, sq), r, 0, n - 1)
    if t in COMPLEX_TYPES:
        d, sup = e.real(d), e.real(sup)
    return [packed, d, sup, tauq, taup]


def _assemble(e: Emitter, strips: list[tuple[int, int, V]], batch: list[int], rows: int, cols: int) -> V:
    """The packed ``[*b, rows, cols]`` matrix from each loop's final window ``x[big:, big:]``: loop ``i`` owns
    columns ``big .. end`` from row ``big`` down and rows ``big .. end`` from column ``big`` on (what later
    loops hold is theirs)."""
    r = len(batch)
    out = None
    for big, end, w in reversed(strips):
        if out is None:
            out = w
            continue
        # w is [rows - big, cols - big]; its part [end - big:, end - big:] is replaced by the later loops'
        cut = end - big
        top = slice_dim(e, w, r, 0, cut)  # rows big .. end, all columns from big
        left = slice_dim(e, slice_dim(e, w, r, cut, rows - big), r + 1, 0, cut)  # rows end.., columns big..end
        bottom = e.concatenate([left, out], r + 1)
        out = e.concatenate([top, bottom], r)
    assert out is not None and out.shape == batch + [rows - strips[0][0], cols - strips[0][0]]
    return out


def apply_gebrd_q(e: Emitter, packed: V, tauq: V, c: V, block_size: int | None = None,
                  segments: int | None = None) -> V:
    """``Q c`` (LAPACK ``?ormbr`` with ``vect = 'Q'``, ``side = 'L'``, ``trans = 'N'``) for the ``Q`` of
    :func:`gebrd_blocked` (``packed`` ``[*b, m, n]``, ``tauq`` ``[*b, n]``) and ``c`` ``[*b, m, p]``; returns
    ``[*b, m, p]``. The reflectors are stored as ``?geqrf`` stores them: blocks of ``nb`` (default
    :data:`ORMBR_BLOCK`), last first, as ``I - V T V^H`` (:func:`.qr.apply_blocks_last_first`) in ``segments``
    loops on shrinking row windows. Accuracy: ``Q`` orthonormal to ``c n eps``, the product backward stable."""
    return apply_reflectors(e, packed, tauq, c, int(block_size or ORMBR_BLOCK), int(segments or ORMBR_SEGMENTS))


def apply_gebrd_p(e: Emitter, packed: V, taup: V, c: V, block_size: int | None = None,
                  segments: int | None = None) -> V:
    """``P c`` (LAPACK ``?ormbr`` with ``vect = 'P'``, ``side = 'L'``, ``trans = 'N'``) for the ``P`` of
    :func:`gebrd_blocked` (``packed`` ``[*b, m, n]``, ``taup`` ``[*b, n]``) and ``c`` ``[*b, n, p]``;
    returns ``[*b, n, p]``. Row 0 is untouched; ``G_k``'s vector, row ``k`` of ``packed`` from column ``k +
    1``, is column ``k`` of ``packed[:n, 1:]^T`` from row ``k``: the reflectors of a QR factorization,
    applied as :func:`apply_gebrd_q` applies ``Q``'s."""
    shape = packed.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r + 1]
    if c.t != packed.t:
        c = to_elem(e, c, packed.t)
    if n < 2 or 0 in batch or c.shape[r + 1] == 0:
        return c
    bd = list(range(r))
    sq = slice_dim(e, packed, r, 0, n)
    refl = slice_dim(e, slice_dim(e, e.transpose(sq, bd + [r + 1, r]), r, 1, n), r + 1, 0, n - 1)
    tail = apply_reflectors(e, refl, slice_dim(e, taup, r, 0, n - 1), slice_dim(e, c, r, 1, n),
                            int(block_size or ORMBR_BLOCK), int(segments or ORMBR_SEGMENTS))
    return e.concatenate([slice_dim(e, c, r, 0, 1), tail], r)


#: Padding singular values (of the matrix scaled to its largest entry, whose singular values are at most 2):
#: the order is padded to leaves times a power of two with decoupled diagonal entries of this size, sliced off
#: at the end.
SVD_PAD = 4.0


def _leaf_svd(e: Emitter, a: V) -> tuple[V, V, V]:
    """``(s, U, V)`` of the leaves ``a`` ``[B, K, m0, m0]`` (one-sided Jacobi, ``jacobi.jacobi_svd_tall``): a leaf with
    a zero last row gets the zero singular value with the left vector ``e_last`` exactly and every other left
    vector exactly 0 there (its columns rotate with that row zero; the QR that makes ``U`` orthonormal never
    touches it)."""
    b, k, m0, _ = a.shape
    s, u, v = jacobi.jacobi_svd_tall(e, e.reshape(a, [b * k, m0, m0]), "S")
    return e.reshape(s, [b, k, m0]), e.reshape(u, [b, k, m0, m0]), e.reshape(v, [b, k, m0, m0])


def bidiagonal_svd(e: Emitter, d: V, off: V) -> tuple[V, V, V]:
    """SVD of the real upper bidiagonal matrices with diagonal ``d`` ``[*b, n]`` and superdiagonal ``off``
    ``[*b, n - 1]`` (f32 or f64, ``n >= 1``): ``(s, u, v)`` with ``B = u diag(s) v^T``, ``s`` ``[*b, n]``
    descending, ``u``, ``v`` ``[*b, n, n]`` orthogonal. NaN ``s`` where an entry is not finite.

    Divide and conquer in the form of LAPACK ``dbdsdc`` / ``dlasd0`` .. ``dlasd8`` with the merge kept square
    (``tests/pytest/lapack_reference.py``'s ``bdsdc`` is its numpy design; docs/lapack.md, eighth round): the
    matrix scaled to its largest entry and padded with decoupled :data:`SVD_PAD` entries to ``m0 2^L``; leaves
    of order ``m0`` by one-sided Jacobi, each with its last row zeroed but the last leaf's; per level, for all
    subproblems at once, the arrow ``M = diag(S) + e_p z^T`` of the two children (``p`` the left child's exact
    zero, ``z = [d_k V_1[last], e_k V_2[0]]``), ``dlasd2``'s deflations (the poles at most the tolerance rotated
    into ``p`` on the right by one Householder reflector; ``|z_p|`` raised to twice the tolerance), the
    eigenvectors of ``diag(S)^2 + z z^T`` by :mod:`.stedc`'s merge (``squared``: tolerances on ``S``, not
    ``S^2``) as the right vectors, the left ones ``[z^T x at p, S_j x_j]`` normalised, and the children's
    vectors times both as batched ``dot_general`` ops. Accuracy: ``||B - U S V^T||`` and the orthogonality of
    ``U`` and ``V`` a small multiple of ``n eps ||B||`` and ``n eps`` (``tests/pytest/test_lapack_bidiagonal.py``).
    """
    shape = d.shape
    batch, n = shape[:-1], shape[-1]
    t = d.t
    eps = float(finfo(t).eps)
    bsz = 1
    for x in batch:
        bsz *= x
    d = e.reshape(d, [bsz, n])
    if n == 1:
        sgn = e.select(e.compare("LT", d, splat(e, 0, t, [bsz, 1]), "FLOAT"), splat(e, -1, t, [bsz, 1]),
                       splat(e, 1, t, [bsz, 1]))
        one = splat(e, 1, t, batch + [1, 1])
        return e.reshape(e.abs(d), batch + [1]), e.reshape(sgn, batch + [1, 1]), one
    ds, os_, scale, finite = stedc.scaled_by_largest(e, d, e.reshape(off, [bsz, n - 1]))
    m0, levels, dp, op, pos, leaf_last = stedc.padded_leaves(e, ds, os_, SVD_PAD)
    nn = m0 * 2 ** levels
    zero_d = e.and_(leaf_last, e.compare("NE", pos, splat(e, nn - 1, "i32", [bsz, nn]), "SIGNED"))
    dl = e.select(zero_d, splat(e, 0, t, [bsz, nn]), dp)
    k = nn // m0
    lshape = [bsz, k, m0, m0]
    rows, cols = e.iota(lshape, 2, "i32"), e.iota(lshape, 3, "i32")
    sup = e.select(leaf_last, splat(e, 0, t, [bsz, nn]), op)
    a = e.select(e.compare("EQ", rows, cols, "SIGNED"), e.broadcast_in_dim(e.reshape(dl, [bsz, k, m0]), lshape, [0, 1, 2]),
                 e.select(e.compare("EQ", cols, rows + 1, "SIGNED"),
                          e.broadcast_in_dim(e.reshape(sup, [bsz, k, m0]), lshape, [0, 1, 2]), splat(e, 0, t, lshape)))
    if m0 == 1:
        neg = e.compare("LT", a, splat(e, 0, t, lshape), "FLOAT")
        sv = e.reshape(e.abs(a), [bsz, k, 1])
        uu, vv = e.select(neg, splat(e, -1, t, lshape), splat(e, 1, t, lshape)), splat(e, 1, t, lshape)
    else:
        sv, uu, vv = _leaf_svd(e, a)
    for level in range(levels):
        h = m0 * 2 ** level
        m, s = 2 * h, nn // (2 * h)
        vec, mat = [bsz, s, m], [bsz, s, m, m]
        uc, vc = e.reshape(uu, [bsz, s, 2, h, h]), e.reshape(vv, [bsz, s, 2, h, h])
        sc = e.reshape(sv, vec)
        alpha = e.reshape(e.slice(e.reshape(dp, vec), [0, 0, h - 1], [bsz, s, h]), [bsz, s])
        beta = e.reshape(e.slice(e.reshape(op, vec), [0, 0, h - 1], [bsz, s, h]), [bsz, s])
        arow = e.reshape(e.slice(uc, [0, 0, 0, h - 1, 0], [bsz, s, 1, h, h]), [bsz, s, h])  # U_1's last row
        vl = e.reshape(e.slice(vc, [0, 0, 0, h - 1, 0], [bsz, s, 1, h, h]), [bsz, s, h])
        vr = e.reshape(e.slice(vc, [0, 0, 1, 0, 0], [bsz, s, 2, 1, h]), [bsz, s, h])
        # p: the left child's zero (its left vector is e_last: the one entry of U_1's last row that is not 0)
        mag = e.abs(arow)
        top = e.broadcast_in_dim(reduce_with(e, mag, 2, 0.0, "maximum"), [bsz, s, h], [0, 1])
        hidx = e.iota([bsz, s, h], 2, "i32")
        pidx = reduce_with(e, e.select(e.compare("EQ", mag, top, "FLOAT"), hidx, splat(e, h, "i32", [bsz, s, h])), 2,
                           h, "minimum")
        isp_h = e.compare("EQ", hidx, e.broadcast_in_dim(pidx, [bsz, s, h], [0, 1]), "SIGNED")
        sgn = reduce_with(e, e.select(isp_h, arow, splat(e, 0, t, [bsz, s, h])), 2, 0.0, "add")
        sgn = e.select(e.compare("LT", sgn, splat(e, 0, t, [bsz, s]), "FLOAT"), splat(e, -1, t, [bsz, s]),
                       splat(e, 1, t, [bsz, s]))
        bc2 = lambda x: e.broadcast_in_dim(x, vec, [0, 1])  # noqa: E731
        z = e.concatenate([vl * e.broadcast_in_dim(alpha * sgn, [bsz, s, h], [0, 1]),
                           vr * e.broadcast_in_dim(beta * sgn, [bsz, s, h], [0, 1])], 2)
        isp = e.concatenate([isp_h, e.compare("NE", hidx, hidx, "SIGNED")], 2)
        poles = e.select(isp, splat(e, 0, t, vec), sc)
        # the arrow scaled to its largest entry (1 where it is zero): the tolerance is then 8 eps, and the
        # secular vectors x ~ z_j / (s_j^2 - lambda) of a tiny subproblem do not overflow when squared
        real = e.compare("LT", poles, splat(e, SVD_PAD / 2, t, vec), "FLOAT")
        big = e.maximum(reduce_with(e, e.select(real, poles, splat(e, 0, t, vec)), 2, 0.0, "maximum"),
                        reduce_with(e, e.abs(z), 2, 0.0, "maximum"))
        big = e.select(e.compare("GT", big, splat(e, 0, t, [bsz, s]), "FLOAT"), big, splat(e, 1, t, [bsz, s]))
        poles, z = poles / bc2(big), z / bc2(big)
        tol = splat(e, 8 * eps, t, vec)
        # |z_p| at least twice the tolerance where some other z_j is above it (dlasd2: the arrow's own entry does
        # not deflate while its row has other entries; where none has, M is diagonal to the tolerance)
        zp = bc2(reduce_with(e, e.select(isp, z, splat(e, 0, t, vec)), 2, 0.0, "add"))
        others = bc2(reduce_with(e, e.and_(e.not_(isp), e.compare("GT", e.abs(z), tol, "FLOAT")), 2, False, "or"))
        zp = e.select(e.and_(others, e.compare("LT", e.abs(zp), tol * 2.0, "FLOAT")),
                      e.select(e.compare("LT", zp, splat(e, 0, t, vec), "FLOAT"), tol * -2.0, tol * 2.0), zp)
        z = e.select(isp, zp, z)
        # poles at most tol (not p) rotated into p on the right: one Householder reflector H w = beta e_p
        tiny_pole = e.and_(e.not_(isp), e.compare("LE", poles, tol, "FLOAT"))
        w = e.select(e.or_(tiny_pole, isp), z, splat(e, 0, t, vec))
        wn = bc2(e.sqrt(e.reduce_sum(w * w, [2])))
        hb = e.select(e.compare("LT", zp, splat(e, 0, t, vec), "FLOAT"), wn, -wn)  # -sign(w_p) ||w||
        hu = w - e.select(isp, hb, splat(e, 0, t, vec))
        any_tiny = e.and_(bc2(reduce_with(e, tiny_pole, 2, False, "or")),
                          e.compare("GT", wn, splat(e, 0, t, vec), "FLOAT"))  # (w = 0: nothing to rotate)
        safe = e.select(any_tiny, wn * (wn + e.abs(zp)), splat(e, 1, t, vec))
        htau = e.select(any_tiny, 1.0 / safe, splat(e, 0, t, vec))  # 2 / ||u||^2
        z = e.select(any_tiny, e.select(tiny_pole, splat(e, 0, t, vec), e.select(isp, hb, z)), z)
        rho = e.reduce_sum(z * z, [2])
        rho = e.select(e.compare("GT", rho, splat(e, 0, t, [bsz, s]), "FLOAT"), rho, splat(e, 1, t, [bsz, s]))
        zn = z / bc2(e.sqrt(rho))  # (z = 0: every column deflates)
        idx = e.iota(vec, 2, "i32")
        last_level = level == levels - 1
        lam, mm, act, drep, zsig = stedc.merge_steps(
            e, poles * poles, zn, bc2(rho), lambda x: bc2(e.reduce_sum(x, [2])),
            lambda x: bc2(reduce_with(e, x, 2, 0.0, "maximum")),
            e.compare("EQ", idx, splat(e, 0, "i32", vec), "SIGNED"),
            e.compare("EQ", idx, splat(e, m - 1, "i32", vec), "SIGNED"), ascending=last_level, squared=True)
        # right: H mm (H = I - tau u u^T); left: [-1 / ||x~|| at p, S_j x_j] for the secular columns, normalised
        utm = e.reduce_sum(e.broadcast_in_dim(hu, mat, [0, 1, 2]) * mm, [2])  # [b, s, m]: u^T mm
        mmv = mm - e.broadcast_in_dim(htau * hu, mat, [0, 1, 2]) * e.broadcast_in_dim(utm, mat, [0, 1, 3])
        # (row p: -1 / ||x~|| = lambda x_p / zhat_p, as x~_p = zhat_p / (0 - lambda), with Gu & Eisenstat's
        # zhat_p, the one the vectors are formed with (z_p itself can differ from it by eps ||z|| where it is
        # small); z^T x, the same value, cancels where lambda is small)
        zhp = zsig * e.sqrt(bc2(rho))
        zhp = e.select(e.compare("NE", zhp, splat(e, 0, t, vec), "FLOAT"), zhp, splat(e, 1, t, vec))
        up = e.broadcast_in_dim(lam, mat, [0, 1, 3]) * mm / e.broadcast_in_dim(zhp, mat, [0, 1, 2])
        # (rows j: s_j x_j with the pole of j's cluster, as the right vectors are formed with it: the poles of a
        # cluster are one value to the tolerance, and the left vectors must share the right ones' reflector)
        srep = e.sqrt(e.maximum(drep, splat(e, 0, t, vec)))
        ux = e.select(e.broadcast_in_dim(isp, mat, [0, 1, 2]), up, e.broadcast_in_dim(srep, mat, [0, 1, 2]) * mm)
        unorm = e.sqrt(e.reduce_sum(ux * ux, [2]))
        unorm = e.select(e.compare("GT", unorm, splat(e, 0, t, vec), "FLOAT"), unorm, splat(e, 1, t, vec))
        ux = ux / e.broadcast_in_dim(unorm, mat, [0, 1, 3])
        mmu = e.select(e.broadcast_in_dim(act, mat, [0, 1, 3]), ux, mm)
        uu = e.reshape(dot(e, uc, e.reshape(mmu, [bsz, s, 2, h, m]), 3, 4, 3), mat)
        vv = e.reshape(dot(e, vc, e.reshape(mmv, [bsz, s, 2, h, m]), 3, 4, 3), mat)
        sv = e.sqrt(e.maximum(lam, splat(e, 0, t, vec))) * bc2(big)
    # descending, the padding (the largest values) left out
    sv = e.reshape(sv, [bsz, nn])
    uu, vv = e.reshape(uu, [bsz, nn, nn]), e.reshape(vv, [bsz, nn, nn])
    if levels:  # (the top level's columns come ascending)
        sv, uu, vv = (reverse(e, x, [-1]) for x in (sv, uu, vv))
    sv = e.slice(sv, [0, nn - n], [bsz, nn])
    uu = e.slice(uu, [0, 0, nn - n], [bsz, n, nn])
    vv = e.slice(vv, [0, 0, nn - n], [bsz, n, nn])
    sv = sv * e.broadcast_in_dim(scale, [bsz, n], [0])
    sv = e.select(e.broadcast_in_dim(finite, [bsz, n], [0]), sv, splat(e, math.nan, t, [bsz, n]))
    return e.reshape(sv, batch + [n]), e.reshape(uu, batch + [n, n]), e.reshape(vv, batch + [n, n])


def bidiagonal_svd_tall(e: Emitter, a: V, mode: str) -> tuple[V, V | None, V | None]:
    """SVD of ``a`` (``[*b, m, n]``, ``m >= n``; f32, f64, complex<f32>, complex<f64>) by LAPACK ``?gesdd``'s
    route: ``(s, u, v)`` with ``s`` ``[*b, n]`` real descending, ``u`` ``[*b, m, n]`` (``[*b, m, m]`` for
    ``mode`` 'A'), ``v`` ``[*b, n, n]``, ``a = u diag(s) v^H``; ``u``, ``v`` None for 'N'.

    :func:`gebrd_blocked` (``a = Q B P^H``), :func:`bidiagonal_svd` of the real bidiagonal ``B = U_B S V_B^T``,
    then ``u = Q [U_B; 0]`` (``[[U_B, 0], [0, I]]`` for 'A') and ``v = P V_B`` (:func:`apply_gebrd_q`,
    :func:`apply_gebrd_p`). Backward stable: ``||a - u diag(s) v^H|| <= c n eps ||a||``, ``u``, ``v``
    orthonormal to ``c n eps``, each singular value within ``c n eps ||a||`` (Golub & Van Loan, *Matrix
    Computations*, 4th ed., §8.6.3; LAPACK's ``dgesdd``)."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    t = a.t
    packed, d, sup, tauq, taup = gebrd_blocked(e, a)
    s, ub, vb = bidiagonal_svd(e, d, sup)
    if mode == "N":
        return s, None, None
    ub, vb = to_elem(e, ub, t), to_elem(e, vb, t)
    if m > n:
        ub = pad_dim(e, ub, r, m - n)
        if mode == "A":
            tail = e.concatenate([splat(e, 0, t, batch + [n, m - n]), identity_matrix(e, batch + [m - n, m - n], t)], r)
            ub = e.concatenate([ub, tail], r + 1)
    return s, apply_gebrd_q(e, packed, tauq, ub), apply_gebrd_p(e, packed, taup, vb)
