"""Householder QR: LAPACK ``geqrf`` (``?geqr2`` / blocked ``?geqrf``), ``orgqr`` / ``ungqr`` (``?org2r`` /
blocked ``?orgqr``), ``geqp3`` (``?laqp2``).

* :func:`build_geqrf` -- Householder QR with LAPACK's reflector conventions (:func:`householder`), so
  ``R``'s signs and phases are LAPACK's; beyond :data:`QR_UNBLOCKED` reflectors blocked, the trailing
  columns updated per block through the compact WY form ``I - V T V^H`` (Schreiber & Van Loan, SIAM J.
  Sci. Stat. Comput. 10 (1989)) as two ``dot_general`` ops and a ``triangular_solve``.
* :func:`build_orgqr` -- the explicit ``Q`` by backward accumulation of the reflectors (blocked the same
  way beyond :data:`QR_UNBLOCKED`).
* :func:`build_geqp3` -- QR with column pivoting: LAPACK's moves of the fixed columns, then the pivot of
  largest partial norm, with the norms downdated (Businger & Golub) and recomputed where the downdate lost
  too many digits (LAPACK Working Note 176), so the pivots are LAPACK's.

Sources: LAPACK's ``dgeqr2``, ``dorg2r``, ``dgeqp3`` / ``dlaqp2`` documentation; Golub & Van Loan,
*Matrix Computations*, 4th ed., §5.2 and §5.4.2; XLA's ``xla/hlo/builder/lib/qr.cc``. The numpy mirrors
are in ``tests/pytest/lapack_reference.py``.
"""

from __future__ import annotations

import math

from hlokit.passes.builder import Emitter, Transpose, V
from hlokit.passes.lapack.householder import householder, reflect_left, store_reflector
from hlokit.passes.lapack.matrix import (
    abs2, column_of, conj, dot, entry_at, finfo, identity_matrix, magnitude, pad_dim, real_type, reduce_with,
    row_of, slice_dim, splat, to_elem, with_column, with_entry,
)

__all__ = ["build_geqrf", "build_orgqr", "build_geqp3", "qr_block_size", "QR_UNBLOCKED", "apply_blocks_last_first",
           "apply_reflectors", "segment_runs"]


def qr_block_size(k: int) -> int:
    """The column block ``nb`` of :func:`build_geqrf` / :func:`build_orgqr` for ``k`` reflectors
    (``min(m, n)``): up to :data:`QR_UNBLOCKED` reflectors the unblocked loops (``nb = k``), beyond
    ``nb =`` :data:`QR_BLOCK` (measured on XLA CPU by ``benchmarks/linalg.py``; see ``docs/lapack.md``)."""
    return max(k, 1) if k <= QR_UNBLOCKED else QR_BLOCK


#: Up to this many reflectors ``geqrf`` / ``orgqr`` run unblocked (one ``stablehlo.while`` over columns).
#: Measured (f32, XLA CPU, LAPACK single-threaded): n = 64 unblocked 0.17 ms, blocked (nb 32) 0.21 ms;
#: n = 256 unblocked 9.8 ms, blocked nb 32 / 64 in 1 loop 3.3 / 3.9 ms, in 3 loops 2.2 / 2.8 ms (LAPACK
#: 1.6 ms); n = 1024 nb 32 in 1 / 2 / 3 loops 196 / 104 / 84 ms.
QR_UNBLOCKED = 64

#: The column block of the blocked loops.
QR_BLOCK = 32

#: The blocked loops run in this many ``stablehlo.while`` loops over shrinking windows (:func:`_segments`).
QR_SEGMENTS = 3


def _segments(count: int, parts: int) -> list[tuple[int, int]]:
    """``count`` blocks cut into at most ``parts`` consecutive runs ``(first, number)`` of near-equal size."""
    parts = max(1, min(parts, count))
    cuts = [round(i * count / parts) for i in range(parts + 1)]
    return [(cuts[i], cuts[i + 1] - cuts[i]) for i in range(parts) if cuts[i + 1] > cuts[i]]


def _householder_step(e: Emitter, a: V, tau: V, k: V, kc: V, kr: V | None = None) -> tuple[V, V]:
    """One unblocked Householder QR step (LAPACK ``geqr2``): the reflector that zeroes column ``kc`` of ``a``
    below row ``kr`` (default ``k``), its scalar stored at ``tau[k]``, applied from the left to the columns
    right of ``kc``, the reflector's vector stored below the diagonal of column ``kc``. Returns (a, tau)."""
    shape = a.shape
    kr = k if kr is None else kr
    col = column_of(e, a, kc)
    v, t, beta = householder(e, col, kr)
    tau = with_entry(e, tau, k, t)
    cols = e.iota(shape, len(shape) - 1, "i32")
    a = e.select(e.compare("GT", cols, e.broadcast_in_dim(kc, shape, []), "SIGNED"),
                 reflect_left(e, a, v, conj(e, t)), a)
    return with_column(e, a, kc, store_reflector(e, col, kr, v, beta)), tau


def _panel_loop(e: Emitter, panel: V, tau: V, j0: V | None, end: V | int, k0: V | None = None,
                row0: V | None = None) -> list[V]:
    """Unblocked ``?geqr2`` on the columns ``k`` in ``[j0, end)`` of ``panel`` (``[*b, m, w]``, column ``c``
    of the panel is column ``j0 + c`` of the matrix; the reflector of column ``k`` starts at row ``k``, at
    panel row ``k - row0`` where the panel holds the rows from ``row0`` (0-d i32) on;
    ``j0`` None: the whole matrix, ``k`` from ``k0``, a 0-d i32 0): a ``stablehlo.while`` carrying
    ``(k, panel, tau)``; ``tau`` (``[*b, K]``) written at ``k``."""
    def body(k: V, qr: V, tau_: V) -> list[V]:
        kc = k if j0 is None else k - j0
        qr, tau_ = _householder_step(e, qr, tau_, k, kc, None if row0 is None else k - row0)
        return [k + 1, qr, tau_]

    def cond(k: V, *_) -> V:
        return e.compare("LT", k, e.scalar(end, "i32") if isinstance(end, int) else end, "SIGNED")

    out = e.while_([k0 if j0 is None else j0, panel, tau], cond, body)
    return out[1:]


def _block_reflector(e: Emitter, a: V, tau: V, j0: V, nb: int, row0: V | None = None) -> tuple[V, V]:
    """The compact WY form of the ``nb`` reflectors stored in columns ``j0 ..`` of ``a`` (``[*b, m, w]``,
    reflector ``c`` in column ``j0 + c`` from row ``j0 + c``, ``tau`` ``[*b, >= j0 + nb]``):
    ``(V, T^-1)`` with ``H_j0 ... H_{j0+nb-1} = I - V T V^H``. ``row0`` (0-d i32): ``a`` holds the rows
    from ``row0`` on of the matrix (a row window, :func:`_window`), the reflector ``c`` starts at its row
    ``j0 + c - row0``.

    ``V`` ``[*b, m, nb]`` is unit lower trapezoidal (zeros above row ``j0 + c``, 1 at it); a column whose
    ``tau`` is 0 (``H = I``) is set to zero. ``T^-1 = diag(1 / tau) + striu(V^H V)`` (Schreiber & Van Loan,
    "A storage-efficient WY representation for products of Householder transformations", SIAM J. Sci. Stat.
    Comput. 10 (1989); the inverse form: Joffrain, Low, Quintana-Orti, van de Geijn, "Accumulating
    Householder transformations, revisited", ACM TOMS 32 (2006)), with 1 for ``1 / tau`` where ``tau`` is 0:
    one ``dot_general`` and elementwise ops; ``T`` itself is never formed (a ``triangular_solve`` applies it).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    t = a.t
    zero_i = e.scalar(0, "i32")
    vshape = batch + [m, nb]
    v = e.dynamic_slice(a, [zero_i] * (r + 1) + [j0], vshape)
    tb = e.dynamic_slice(tau, [zero_i] * r + [j0], batch + [nb])
    rows = e.iota(vshape, r, "i32")
    diag = e.iota(vshape, r + 1, "i32") + e.broadcast_in_dim(j0 if row0 is None else j0 - row0, vshape, [])
    trivial = e.compare("EQ", tb, splat(e, 0, t, batch + [nb]), "FLOAT")
    live = e.not_(e.broadcast_in_dim(trivial, vshape, list(range(r)) + [r + 1]))
    v = e.select(e.compare("GT", rows, diag, "SIGNED"), v,
                 e.select(e.compare("EQ", rows, diag, "SIGNED"), splat(e, 1, t, vshape), splat(e, 0, t, vshape)))
    v = e.select(live, v, splat(e, 0, t, vshape))
    s = dot(e, conj(e, v), v, r, r, r)  # V^H V  [*b, nb, nb]
    tshape = batch + [nb, nb]
    ti, tj = e.iota(tshape, r, "i32"), e.iota(tshape, r + 1, "i32")
    inv_tau = e.select(trivial, splat(e, 1, t, batch + [nb]), splat(e, 1, t, batch + [nb]) / tb)
    d = e.broadcast_in_dim(inv_tau, tshape, list(range(r)) + [r + 1])
    tinv = e.select(e.compare("LT", ti, tj, "SIGNED"), s,
                    e.select(e.compare("EQ", ti, tj, "SIGNED"), d, splat(e, 0, t, tshape)))
    return v, tinv


def _apply_block(e: Emitter, c: V, v: V, tinv: V, adjoint_: bool) -> V:
    """``(I - V T V^H) c`` (``adjoint_`` False) or ``(I - V T^H V^H) c`` (True) for ``c`` ``[*b, m, w]``
    (LAPACK ``?larfb``): ``W = V^H c`` and ``c - V (T W)`` as two ``dot_general``s, ``T W`` by one
    ``triangular_solve`` with ``T^-1`` (upper)."""
    r = len(c.shape) - 2
    w = dot(e, conj(e, v), c, r, r, r)  # [*b, nb, w]
    y = e.triangular_solve(tinv, w, left_side=True, lower=False, unit_diagonal=False,
                           transpose_a=Transpose.ADJOINT if adjoint_ else Transpose.NO_TRANSPOSE)
    return c - dot(e, v, y, r, r + 1, r)


def _window_rows(m: int, nb: int, lower_bandwidth: int | None) -> int | None:
    """The rows of the window that holds the ``nb`` reflectors of a block (:func:`build_geqrf`'s
    ``lower_bandwidth``) in a matrix of ``m`` rows; None: no band, or a window as tall as the matrix."""
    if lower_bandwidth is None or lower_bandwidth + nb >= m:
        return None
    return lower_bandwidth + nb


def _window(e: Emitter, x: V, j0: V, rows: int) -> tuple[V, V]:
    """``(row0, x[row0 : row0 + rows])`` for ``x`` ``[*b, m, w]``, ``row0 = min(j0, m - rows)`` (0-d i32):
    the rows the reflectors of the block starting at column ``j0`` can touch where the matrix has the lower
    bandwidth ``rows - nb``."""
    shape = x.shape
    r = len(shape) - 2
    row0 = e.minimum(j0, e.scalar(shape[r] - rows, "i32"))
    zero_i = e.scalar(0, "i32")
    return row0, e.dynamic_slice(x, [zero_i] * r + [row0, zero_i], shape[:r] + [rows, shape[r + 1]])


def _geqrf_blocked(e: Emitter, a: V, nb: int, segments: int, lower_bandwidth: int | None = None) -> list[V]:
    """Blocked ``?geqrf`` of ``a`` (``[*b, m, n]``, ``min(m, n) > nb``): per block of ``nb`` columns the panel
    (:func:`_panel_loop`, full height), its compact WY form (:func:`_block_reflector`) and ``Q_b^H`` applied
    to the columns right of it (:func:`_apply_block`). The blocks run in ``segments`` ``stablehlo.while``
    loops of fixed shapes, segment ``s`` on the trailing submatrix ``a[J_s:, J_s:]`` where its first block
    starts (the product shrinks with the matrix; each loop's shapes are static). With ``lower_bandwidth``
    ``p`` each block works on the ``p + nb`` rows its reflectors touch (:func:`_window`) instead of the full
    height."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)
    count = -(-kmax // nb)
    zero_i = e.scalar(0, "i32")
    taus = []
    for first, number in _segments(count, segments):
        big = first * nb  # the segment's window a[big:, big:]
        win = e.slice(a, [0] * r + [big, big], batch + [m, n])
        wm, wn = m - big, n - big
        kw = min(kmax - big, number * nb)  # reflectors of this segment
        width = number * nb
        if wn < width:  # room for the last full-width panel slice
            win = pad_dim(e, win, r + 1, width - wn)

        rows = _window_rows(wm, nb, lower_bandwidth)

        def body(blk: V, w_: V, tau_: V, kw=kw, wm=wm, rows=rows) -> list[V]:
            j0 = blk * e.scalar(nb, "i32")
            end = e.minimum(j0 + e.scalar(nb, "i32"), e.scalar(kw, "i32"))
            if rows is not None:
                row0, sub = _window(e, w_, j0, rows)
                panel = e.dynamic_slice(sub, [zero_i] * (r + 1) + [j0], batch + [rows, nb])
                panel, tau_ = _panel_loop(e, panel, tau_, j0, end, row0=row0)
                sub = e.dynamic_update_slice(sub, panel, [zero_i] * (r + 1) + [j0])
                v, tinv = _block_reflector(e, sub, tau_, j0, nb, row0)
                right = e.compare("GE", e.iota(sub.shape, r + 1, "i32"),
                                  e.broadcast_in_dim(j0 + e.scalar(nb, "i32"), sub.shape, []), "SIGNED")
                sub = e.select(right, _apply_block(e, sub, v, tinv, True), sub)
                return [blk + e.scalar(1, "i32"), e.dynamic_update_slice(w_, sub, [zero_i] * r + [row0, zero_i]),
                        tau_]
            wshape = w_.shape
            panel = e.dynamic_slice(w_, [zero_i] * (r + 1) + [j0], batch + [wm, nb])
            panel, tau_ = _panel_loop(e, panel, tau_, j0, end)
            w_ = e.dynamic_update_slice(w_, panel, [zero_i] * (r + 1) + [j0])
            v, tinv = _block_reflector(e, w_, tau_, j0, nb)
            right = e.compare("GE", e.iota(wshape, r + 1, "i32"),
                              e.broadcast_in_dim(j0 + e.scalar(nb, "i32"), wshape, []), "SIGNED")
            w_ = e.select(right, _apply_block(e, w_, v, tinv, True), w_)
            return [blk + e.scalar(1, "i32"), w_, tau_]

        init = [zero_i, win, splat(e, 0, a.t, batch + [width])]
        _, win, tau = e.while_(init, lambda blk, *_, number=number: e.compare(
            "LT", blk, e.scalar(number, "i32"), "SIGNED"), body)
        win = slice_dim(e, win, r + 1, 0, wn)
        taus.append(slice_dim(e, tau, r, 0, kw))
        if big:
            bottom = e.concatenate([e.slice(a, [0] * r + [big, 0], batch + [m, big]), win], r + 1)
            a = e.concatenate([e.slice(a, [0] * (r + 2), batch + [big, n]), bottom], r)
        else:
            a = win
    return [a, e.concatenate(taus, r) if len(taus) > 1 else taus[0]]


def build_geqrf(e: Emitter, a: V, block_size: int | None = None, segments: int | None = None,
                lower_bandwidth: int | None = None) -> list[V]:
    """``geqrf`` of ``a`` (``[*b, m, n]``): ``[qr, tau]`` as LAPACK returns them (``R`` on and above the
    diagonal, the Householder vectors below it, ``tau`` ``[*b, min(m, n)]``).

    Up to ``block_size`` (default :func:`qr_block_size`) reflectors: a ``stablehlo.while`` over
    ``k < min(m, n)`` carrying ``(k, qr, tau)`` (unblocked ``?geqr2``): the reflector of column ``k``
    (:func:`householder`), ``H^H`` applied to the columns right of ``k`` under an iota mask, ``beta`` and
    ``v`` written into column ``k``. Beyond: LAPACK's blocked ``?geqrf`` (:func:`_geqrf_blocked`): the same
    reflectors (the same signs and phases), the trailing columns updated per block by the compact WY form
    ``I - V T^H V^H`` (two ``dot_general``s and a ``triangular_solve`` of order ``nb``), in ``segments``
    loops over shrinking windows.

    ``lower_bandwidth`` ``p`` (static): the caller's promise that ``a[i, j] = 0`` for ``i > j + p``. The QR
    keeps that band (the reflector of column ``k`` has its non-zeros in rows ``k .. k + p``, and the update
    of a column ``j > k`` fills rows ``<= k + p < j + p`` only), so the blocked loop works per block on the
    ``p + nb`` rows from the block's first column (the zeros LAPACK's ``?tpqrt`` skips for a triangle under
    a matrix; the QR of ``[sqrt(c) X; I]`` in Nakatsukasa & Higham's QDWH, SIAM J. Sci. Comput. 35(3), 2013,
    whose band is the ``X`` block's ``m`` rows): the same reflectors to rounding, ``(p + nb) / m`` of the
    work of each block. None (default): the full height (the unblocked loop ignores it).
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m, n = shape[:r], shape[r], shape[r + 1]
    kmax = min(m, n)
    nb = max(1, int(block_size or qr_block_size(kmax)))
    if kmax > nb and 0 not in batch:
        return _geqrf_blocked(e, a, nb, segments or QR_SEGMENTS, lower_bandwidth)
    k0 = e.scalar(0, "i32")
    return _panel_loop(e, a, splat(e, 0, a.t, batch + [kmax]), None, kmax, k0)


def build_orgqr(e: Emitter, a: V, tau: V, block_size: int | None = None, segments: int | None = None,
                lower_bandwidth: int | None = None) -> V:
    """``orgqr`` / ``ungqr``: the first ``p`` columns of ``Q = H_0 ... H_{k-1}`` (``a`` ``[*b, m, p]`` from
    :func:`build_geqrf`, possibly zero-padded; ``tau`` ``[*b, k]``).

    Up to ``block_size`` (default :func:`qr_block_size`) reflectors: a ``stablehlo.while`` over ``i < k``
    carrying ``(i, q)`` from the identity: ``q <- H_j q`` with ``j = k - 1 - i`` (backward accumulation,
    unblocked ``?org2r``). Beyond: LAPACK's blocked ``?orgqr``: blocks of ``nb`` reflectors from the last,
    ``q <- (I - V T V^H) q`` (:func:`_block_reflector`, :func:`_apply_block`), in ``segments`` loops; block
    ``b`` changes only ``q[j0:, j0:]`` (the columns left of ``j0`` are still those of the identity, which
    ``V^H`` maps to zero), so each loop works on the window of its first block. ``lower_bandwidth``: that of
    the matrix :func:`build_geqrf` factored with it (its reflectors' band), each block then changes only the
    ``p + nb`` rows its reflectors touch; None: the full height.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    kk = tau.shape[-1]
    nb = max(1, int(block_size or qr_block_size(kk)))
    if kk > nb and 0 not in batch:
        return _orgqr_blocked(e, a, tau, nb, segments or QR_SEGMENTS, lower_bandwidth)
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


def _orgqr_blocked(e: Emitter, a: V, tau: V, nb: int, segments: int, lower_bandwidth: int | None = None) -> V:
    """Blocked ``?orgqr`` (see :func:`build_orgqr`): the blocks of ``nb`` reflectors from the last one
    (``count = ceil(k / nb)``, the last block padded with ``tau = 0``), in ``segments`` ``stablehlo.while``
    loops; the loop of blocks ``first .. first + number - 1`` runs (backwards) on the window
    ``q[J:, J:]``, ``J = first * nb``, embedded below the identity when the next loop starts."""
    shape = a.shape
    r = len(shape) - 2
    batch, m, p = shape[:r], shape[r], shape[r + 1]
    kk = tau.shape[-1]
    count = -(-kk // nb)
    width = count * nb
    t = a.t
    tau = pad_dim(e, tau, r, width - kk)
    if p < width:
        a = pad_dim(e, a, r + 1, width - p)
    q = None  # the window computed so far, q[J_prev:, J_prev:]
    prev = None
    for first, number in reversed(_segments(count, segments)):
        big = first * nb
        wm, wp = m - big, p - big
        if q is None:
            win = identity_matrix(e, batch + [wm, wp], t)
        else:  # [[I, 0], [0, q]] of order (wm, wp)
            d = prev - big
            top = e.concatenate([identity_matrix(e, batch + [d, d], t), splat(e, 0, t, batch + [d, wp - d])], r + 1)
            bottom = e.concatenate([splat(e, 0, t, batch + [wm - d, d]), q], r + 1)
            win = e.concatenate([top, bottom], r)
        aw = e.slice(a, [0] * r + [big, big], batch + [m, a.shape[r + 1]])
        q, prev = apply_blocks_last_first(e, aw, slice_dim(e, tau, r, big, width), win, nb, number,
                                          lower_bandwidth), big
    return q


def apply_blocks_last_first(e: Emitter, a: V, tau: V, c: V, nb: int, number: int,
                            lower_bandwidth: int | None = None) -> V:
    """``H_0 H_1 ... H_{number nb - 1} c`` for the Householder reflectors stored as :func:`build_geqrf` stores
    them in ``a`` (``[*b, m, >= number nb]``, reflector ``j`` in column ``j`` from row ``j``) with ``tau``
    (``[*b, number nb]``; ``c`` ``[*b, m, q]``): one ``stablehlo.while`` over the ``number`` blocks of ``nb``
    reflectors from the last, each applied as ``I - V T V^H`` (:func:`_block_reflector`,
    :func:`_apply_block`; LAPACK's ``?larfb`` in ``?orgqr`` / ``?ormqr``). ``lower_bandwidth`` ``p``: the
    reflectors of column ``j`` have their non-zeros in rows ``j .. j + p`` (:func:`build_geqrf`), a block
    changes only the ``p + nb`` rows from its first column (:func:`_window`)."""
    rows = _window_rows(c.shape[-2], nb, lower_bandwidth)
    r = len(c.shape) - 2
    zero_i = e.scalar(0, "i32")

    def body(i: V, q_: V) -> list[V]:
        j0 = (e.scalar(number - 1, "i32") - i) * e.scalar(nb, "i32")
        if rows is not None:
            row0, aw = _window(e, a, j0, rows)
            v, tinv = _block_reflector(e, aw, tau, j0, nb, row0)
            _, sub = _window(e, q_, j0, rows)
            sub = _apply_block(e, sub, v, tinv, False)
            return [i + e.scalar(1, "i32"), e.dynamic_update_slice(q_, sub, [zero_i] * r + [row0, zero_i])]
        v, tinv = _block_reflector(e, a, tau, j0, nb)
        return [i + e.scalar(1, "i32"), _apply_block(e, q_, v, tinv, False)]

    out = e.while_([e.scalar(0, "i32"), c], lambda i, *_: e.compare("LT", i, e.scalar(number, "i32"), "SIGNED"),
                   body)
    return out[1]


def apply_reflectors(e: Emitter, refl: V, tau: V, c: V, block_size: int, segments: int) -> V:
    """``H_0 H_1 ... H_{k-1} c`` for the ``k`` (``tau``'s last extent) Householder reflectors stored as
    :func:`build_geqrf` stores them in ``refl`` (``[*b, m, >= k]``, reflector ``j`` in column ``j`` from row
    ``j``; ``H_j = I - tau_j v_j v_j^H``) and ``c`` ``[*b, m, p]`` (converted to ``refl``'s type); returns
    ``[*b, m, p]`` (LAPACK ``?ormqr`` with ``side = 'L'``, ``trans = 'N'``). Blocks of ``block_size``
    reflectors, last block first, as ``I - V T V^H`` (:func:`apply_blocks_last_first`), in ``segments``
    ``stablehlo.while`` loops on shrinking row windows (block ``j`` changes rows ``>= j nb`` only); the
    reflectors are zero-padded to whole blocks (``tau = 0``: ``H = I``). Accuracy: backward stable (Golub &
    Van Loan, *Matrix Computations*, 4th ed., §5.1.6)."""
    shape = refl.shape
    r = len(shape) - 2
    batch, m = shape[:r], shape[r]
    if c.t != refl.t:
        c = to_elem(e, c, refl.t)
    k = tau.shape[-1]
    if k == 0 or 0 in batch or c.shape[r + 1] == 0:
        return c
    nb = max(1, min(block_size, k))
    count = -(-k // nb)
    width = count * nb
    a1 = pad_dim(e, slice_dim(e, refl, r + 1, 0, k) if refl.shape[r + 1] > k else refl, r + 1, width - k)
    tw_all = pad_dim(e, tau, r, width - k)
    for first, number in reversed(segment_runs(count, segments)):
        big = first * nb
        if big >= m:
            continue
        aw = e.slice(a1, [0] * r + [big, big], batch + [m, big + number * nb])
        tw = slice_dim(e, tw_all, r, big, big + number * nb)
        cw = apply_blocks_last_first(e, aw, tw, slice_dim(e, c, r, big, m), nb, number)
        c = e.concatenate([slice_dim(e, c, r, 0, big), cw], r) if big else cw
    return c


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
        a_, tau = _householder_step(e, a_, tau, k, k)
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


# The segmentation under a public name, for the other blocked algorithms (``tridiagonal_blocked``).
segment_runs = _segments
