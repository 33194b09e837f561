"""Blocked reduction to upper bidiagonal form and its back-transformations: LAPACK ``?gebrd`` with ``?labrd``
panels, ``?ormbr`` (``side = 'L'``, ``trans = 'N'``, both ``vect``).

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
  (:func:`.qr.apply_blocks_last_first`): ``Q``'s reflectors are stored as ``?geqrf`` stores them, ``P``'s
  are those of a QR factorization of ``A[:, 1:]^T`` (LAPACK ``dormbr`` calls ``dormqr`` / ``dormlq``).

The first half of the bidiagonal route of an SVD (LAPACK ``?gesdd``: ``?gebrd``, a bidiagonal divide and
conquer, ``?ormbr``); ``docs/lapack.md`` measures it against LAPACK's kernel. Fixed shapes: the blocks run in
a few ``stablehlo.while`` loops on shrinking trailing windows (:func:`.qr.segment_runs`), the matrix
zero-padded to a whole number of blocks (a zero column or row gives ``tau = 0``).
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.householder import householder, store_reflector
from hlokit.passes.lapack.matrix import (
    column_of, conj, diagonal_of, dot, pad_dim, put_column, row_of, slice_dim, splat, superdiagonal_of, to_elem,
    with_entry,
)
from hlokit.passes.lapack.qr import apply_reflectors, segment_runs

__all__ = ["GEBRD_BLOCK", "GEBRD_SEGMENTS", "gebrd_blocked", "apply_gebrd_q", "apply_gebrd_p"]

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

        bd = list(range(r))
        tq0, tp0 = splat(e, 0, t, batch + [number * nb]), splat(e, 0, t, batch + [number * nb])
        _, x, tq, tp = e.while_([zero_i, x, tq0, tp0],
                                lambda blk, *_, number=number: e.compare(
                                    "LT", blk, e.scalar(number, "i32"), "SIGNED"), body)
        end = pieces[i + 1][0] * nb if i + 1 < len(pieces) else size
        # this loop's finished columns (rows big .. ) and rows (columns big .. ) of the padded matrix
        strips.append((big, end, x))
        tqs.append(tq)
        tps.append(tp)
    packed = _assemble(e, strips, batch, rows_total, size, t)
    packed = e.slice(packed, [0] * (r + 2), batch + [m, n])
    tauq = slice_dim(e, e.concatenate(tqs, r) if len(tqs) > 1 else tqs[0], r, 0, n)
    taup = slice_dim(e, e.concatenate(tps, r) if len(tps) > 1 else tps[0], r, 0, n)
    if n:  # (G_{n-1} is I: LAPACK's taup[n-1] = 0; padding made it so unless m = n = size)
        taup = with_entry(e, taup, e.scalar(n - 1, "i32"), splat(e, 0, t, batch))
    sq = slice_dim(e, packed, r, 0, n)
    d = diagonal_of(e, sq)
    sup = slice_dim(e, superdiagonal_of(e, sq), r, 0, n - 1)
    if t in COMPLEX_TYPES:
        d, sup = e.real(d), e.real(sup)
    return [packed, d, sup, tauq, taup]


def _assemble(e: Emitter, strips: list[tuple[int, int, V]], batch: list[int], rows: int, cols: int, t: str) -> V:
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
    if n < 2 or 0 in batch or c.shape[r + 1] == 0:
        return c if c.t == packed.t else to_elem(e, c, packed.t)
    bd = list(range(r))
    sq = slice_dim(e, packed, r, 0, n)
    refl = slice_dim(e, slice_dim(e, e.transpose(sq, bd + [r + 1, r]), r, 1, n), r + 1, 0, n - 1)
    if c.t != packed.t:
        c = to_elem(e, c, packed.t)
    tail = apply_reflectors(e, refl, slice_dim(e, taup, r, 0, n - 1), slice_dim(e, c, r, 1, n),
                            int(block_size or ORMBR_BLOCK), int(segments or ORMBR_SEGMENTS))
    return e.concatenate([slice_dim(e, c, r, 0, 1), tail], r)
