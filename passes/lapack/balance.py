"""Balancing: LAPACK ``?gebal`` (permutation and scaling) and ``?gebak`` (back-transformation of vectors).

* :func:`gebal` -- ``D^-1 P^T A P D``: the permutation isolating the eigenvalues a zero pattern exposes
  (the loops of LAPACK 3.12), then power-of-2 scaling sweeps that bring row and column norms together,
  with ``?gebal``'s overflow guards; exact, and LAPACK's result bit for bit.
* :func:`gebak` -- eigen- or Schur vectors of the balanced matrix made those of ``A``.

Used by ``geev`` (:mod:`hlokit.passes.lapack.eig`) and ``gees`` (permutation only). Sources: LAPACK's
``dgebal`` / ``dgebak`` documentation; Parlett & Reinsch, "Balancing a matrix for calculation of
eigenvalues and eigenvectors", Numer. Math. 13 (1969). The numpy mirror: ``tests/pytest/lapack_reference.py``
(``gebal``).
"""

from __future__ import annotations

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.householder import by_largest
from hlokit.passes.lapack.matrix import (
    abs2, any_true, column_of, finfo, magnitude, pick_entry, real_type, reduce_with, row_of, splat, to_elem,
)

__all__ = ["MAX_BALANCE_SWEEPS", "nrm2", "gebal", "gebak"]


#: Balancing's bound on sweeps over the columns (``?gebal`` sweeps until one changes nothing; a change lowers a
#: row + column norm sum by 5 % at least, so real matrices stop after a few).
MAX_BALANCE_SWEEPS = 100


def nrm2(e: Emitter, x: V) -> V:
    """Euclidean norm over the last dimension of real or complex ``x`` ``[*b, n]`` -> ``[*b]`` (real), taken of
    ``x`` divided by its largest magnitude (no overflow or underflow in the squares)."""
    scaled, big = by_largest(e, x, magnitude(e, x))
    return e.sqrt(e.reduce_sum(abs2(e, scaled), [len(x.shape) - 1])) * big


def _take(e: Emitter, x: V, idx: V, dim: int) -> V:
    """``x[..., idx, ...]`` along ``dim`` (one of the two last dimensions of ``x`` ``[*b, m, n]``) with ``idx``
    ``[*b]`` (i32) one index per batch element: the result drops ``dim``. Exact for every value (NaN payloads
    and signed zeros included): the bits under a one-hot mask, combined by a ``reduce`` with ``or``."""
    if x.t in COMPLEX_TYPES:
        return e.complex(_take(e, e.real(x), idx, dim), _take(e, e.imag(x), idx, dim))
    shape = x.shape
    r = len(shape) - 2
    at = e.compare("EQ", e.iota(shape, dim, "i32"), e.broadcast_in_dim(idx, shape, list(range(r))), "SIGNED")
    bits = {"f32": "i32", "f64": "i64"}[x.t]
    picked = reduce_with(e, e.select(at, e.bitcast_convert(x, bits), splat(e, 0, bits, shape)), dim, 0, "or")
    return e.bitcast_convert(picked, x.t)


def _exchange(e: Emitter, a: V, i: V, j: V, dim: int, where: V) -> V:
    """``a`` ``[*b, m, n]`` with its slices ``i`` and ``j`` (``[*b]`` i32, one index each per batch element) along
    ``dim`` (one of the two last dimensions: rows or columns) exchanged, exactly (:func:`_take`), at the entries
    where ``where`` (i1, ``a``'s shape) holds."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    along = e.iota(shape, dim, "i32")
    keep = bd + [r + 1 if dim == r else r]  # (the other matrix dimension: the slices' own)
    slice_i, slice_j = (e.broadcast_in_dim(_take(e, a, x, dim), shape, keep) for x in (i, j))
    return e.select(e.and_(where, e.compare("EQ", along, e.broadcast_in_dim(i, shape, bd), "SIGNED")), slice_j,
                    e.select(e.and_(where, e.compare("EQ", along, e.broadcast_in_dim(j, shape, bd), "SIGNED")), slice_i, a))


def _swap(e: Emitter, a: V, i: V, j: V, go: V, last_row: V, first_col: V) -> V:
    """``a`` ``[*b, n, n]`` with indices ``i`` (0-d i32) and ``j`` (``[*b]`` i32) exchanged where ``go`` (``[*b]``
    i1), as ``?gebal``'s two ``?swap`` calls: columns ``i`` and ``j`` over rows ``0 .. last_row``, then rows ``i``
    and ``j`` over columns ``first_col .. n-1`` (``[*b]`` i32 bounds)."""
    shape = a.shape
    r = len(shape) - 2
    bd = list(range(r))
    ib = e.broadcast_in_dim(i, j.shape, [])
    gob = e.broadcast_in_dim(go, shape, bd)
    in_rows = e.compare("LE", e.iota(shape, r, "i32"), e.broadcast_in_dim(last_row, shape, bd), "SIGNED")
    a = _exchange(e, a, ib, j, r + 1, e.and_(gob, in_rows))
    in_cols = e.compare("GE", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(first_col, shape, bd), "SIGNED")
    return _exchange(e, a, ib, j, r, e.and_(gob, in_cols))


def _set_at(e: Emitter, v: V, at: V, value: V, go: V) -> V:
    """``v`` ``[*b, n]`` with ``v[..., at] = value`` (``at``, ``value`` ``[*b]``) where ``go`` (``[*b]`` i1)."""
    shape = v.shape
    bd = list(range(len(shape) - 1))
    hit = e.and_(e.broadcast_in_dim(go, shape, bd),
                 e.compare("EQ", e.iota(shape, len(shape) - 1, "i32"), e.broadcast_in_dim(at, shape, bd), "SIGNED"))
    return e.select(hit, e.broadcast_in_dim(value, shape, bd), v)


def _balance_permute(e: Emitter, a: V) -> tuple[V, V, V, V]:
    """The permutation half of LAPACK ``?gebal`` (``JOB = 'P'``, the loops of LAPACK 3.12) on ``a`` ``[*b, n, n]``:
    ``(P^T A P, piv, ilo, ihi)`` as ``gebal_permute`` of the numpy mirror: ``piv`` ``[*b, n]`` the index each position
    outside ``ilo .. ihi`` was swapped with (its own index inside), ``ilo``, ``ihi`` ``[*b]`` (0-based, i32).

    Row passes (``stablehlo.while`` until no batch element swaps): ``i`` from ``n - 1`` down to 0, a row with
    no non-zero off the diagonal in columns ``0 .. l`` is swapped to ``l`` and ``l`` decreases (``l`` reaching
    0 ends the search: the matrix is triangular up to a permutation); then column passes: ``j`` from 0 up, a
    column with no non-zero off the diagonal in rows ``k .. l`` is swapped to ``k`` and ``k`` increases. Each
    batch element keeps its own ``k``, ``l`` and passes (one-hot masks)."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    vec = batch + [n]
    pos = e.iota(vec, r, "i32")
    zero_b, one_b = splat(e, 0, "i32", batch), splat(e, 1, "i32", batch)
    yes, no = splat(e, True, "i1", batch), splat(e, False, "i1", batch)
    zero_a = splat(e, 0, a.t, vec)

    def isolated(line: V, i: V, first: V, last: V) -> V:  # [*b]: no non-zero off position i within first .. last
        nz = e.and_(e.compare("NE", line, zero_a, "FLOAT"), e.compare("NE", pos, e.broadcast_in_dim(i, vec, []), "SIGNED"))
        nz = e.and_(nz, e.and_(e.compare("GE", pos, e.broadcast_in_dim(first, vec, bd), "SIGNED"),
                               e.compare("LE", pos, e.broadcast_in_dim(last, vec, bd), "SIGNED")))
        return e.not_(reduce_with(e, nz, r, False, "or"))

    def row_step(i: V, a: V, piv: V, k: V, l: V, l0: V, active: V, done: V, swapped: V) -> list[V]:
        ib = e.broadcast_in_dim(i, batch, [])
        found = e.and_(e.and_(active, e.not_(done)), e.compare("LE", ib, l0, "SIGNED"))
        found = e.and_(found, isolated(row_of(e, a, i), i, zero_b, l))
        piv = _set_at(e, piv, l, ib, found)
        a = _swap(e, a, i, l, e.and_(found, e.compare("NE", ib, l, "SIGNED")), l, k)
        last = e.and_(found, e.compare("EQ", l, zero_b, "SIGNED"))
        l = e.select(e.and_(found, e.not_(last)), l - one_b, l)
        return [i - e.scalar(1, "i32"), a, piv, k, l, l0, active, e.or_(done, last), e.or_(swapped, found)]

    def row_pass(a: V, piv: V, k: V, l: V, active: V, done: V) -> list[V]:
        out = e.while_([e.scalar(n - 1, "i32"), a, piv, k, l, l, active, done, no],
                           lambda i, *_: e.compare("GE", i, e.scalar(0, "i32"), "SIGNED"), row_step)
        _, a, piv, k, l, _, _, done, swapped = out
        return [a, piv, k, l, e.and_(swapped, e.not_(done)), done]

    a, piv, k, l, _, done = e.while_(
        [a, pos, zero_b, splat(e, n - 1, "i32", batch), yes, no],
        lambda a, piv, k, l, active, done: any_true(e, active), row_pass)

    def col_step(j: V, a: V, piv: V, k: V, l: V, k0: V, active: V, swapped: V) -> list[V]:
        jb = e.broadcast_in_dim(j, batch, [])
        found = e.and_(active, e.and_(e.compare("GE", jb, k0, "SIGNED"), e.compare("LE", jb, l, "SIGNED")))
        found = e.and_(found, isolated(column_of(e, a, j), j, k, l))
        piv = _set_at(e, piv, k, jb, found)
        a = _swap(e, a, j, k, e.and_(found, e.compare("NE", jb, k, "SIGNED")), l, k)
        k = e.select(found, k + one_b, k)
        return [j + e.scalar(1, "i32"), a, piv, k, l, k0, active, e.or_(swapped, found)]

    def col_pass(a: V, piv: V, k: V, l: V, active: V) -> list[V]:
        out = e.while_([e.scalar(0, "i32"), a, piv, k, l, k, active, no],
                           lambda j, *_: e.compare("LT", j, e.scalar(n, "i32"), "SIGNED"), col_step)
        _, a, piv, k, l, _, _, swapped = out
        return [a, piv, k, l, swapped]

    a, piv, k, l, _ = e.while_([a, piv, k, l, e.not_(done)], lambda a, piv, k, l, active: any_true(e, active),
                                   col_pass)
    return a, piv, k, l


def gebal(e: Emitter, a: V, permute: bool = True, scale: bool = True) -> tuple[V, V | None, V, V, V]:
    """LAPACK ``?gebal`` with ``JOB = 'B'`` (``'S'`` when not ``permute``, ``'P'`` when not ``scale``) of ``a``
    ``[*b, n, n]``: ``(D^-1 P^T A P D, d, piv, ilo, ihi)``: first :func:`_balance_permute` (``piv``, ``ilo``,
    ``ihi``; without ``permute`` the identity, ``0``, ``n - 1``), then ``d`` ``[*b, n]``, powers of 2 in the real
    type (1 outside ``ilo .. ihi``; None when not ``scale``), so the balanced matrix is exact.

    The scaling sweeps over the columns ``i`` of ``ilo .. ihi`` (``stablehlo.while``; at most
    :data:`MAX_BALANCE_SWEEPS`) until no batch element changes: with ``c`` / ``r`` the norms of column / row
    ``i`` within rows / columns ``ilo .. ihi``, two loops find the power of 2 ``f`` with ``c f`` and ``r / f``
    within a factor 2 of each other; ``f`` is kept when ``c f + r / f < 0.95 (c + r)`` (row ``i`` divided by
    ``f``, column ``i`` multiplied by it, ``d_i *= f``). ``?gebal``'s guards keep every scaled quantity inside
    ``[2 sfmin1, 1 / (2 sfmin1)]`` (``sfmin1 = tiny / eps``) and ``d_i`` inside ``[sfmin1, 1 / sfmin1]``; a zero
    column or row, or one with a NaN, is left alone. The same result as the reference LAPACK ``?gebal`` (tests
    compare with scipy's; the numpy mirror's ``gebal`` has these loops)."""
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    rt = real_type(t)
    fin = finfo(rt)
    sfmin1 = float(fin.tiny) / float(fin.eps)
    sfmax1, sfmin2 = 1 / sfmin1, sfmin1 * 2
    sfmax2 = 1 / sfmin2
    bd = list(range(r))
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(batch + [n], r, "i32")
    zero_i = e.scalar(0, "i32")
    no = splat(e, False, "i1", batch)
    if permute:
        a, piv, lo, hi = _balance_permute(e, a)
    else:
        piv, lo, hi = idx, splat(e, 0, "i32", batch), splat(e, n - 1, "i32", batch)
    if not scale:
        return a, None, piv, lo, hi
    inside = e.and_(e.compare("GE", idx, e.broadcast_in_dim(lo, batch + [n], bd), "SIGNED"),
                    e.compare("LE", idx, e.broadcast_in_dim(hi, batch + [n], bd), "SIGNED"))  # [*b, n]
    zero_v = splat(e, 0, t, batch + [n])

    def column(i: V, a: V, d: V, noconv: V) -> list[V]:
        col = column_of(e, a, i)
        row = row_of(e, a, i)
        c, rr = nrm2(e, e.select(inside, col, zero_v)), nrm2(e, e.select(inside, row, zero_v))
        ca = reduce_with(e, magnitude(e, col), r, 0.0, "maximum")
        ra = reduce_with(e, magnitude(e, row), r, 0.0, "maximum")
        zero = splat(e, 0, rt, batch)
        total = c + ca + rr + ra
        live = e.and_(e.and_(e.compare("NE", c, zero, "FLOAT"), e.compare("NE", rr, zero, "FLOAT")),
                      e.and_(e.compare("EQ", total, total, "FLOAT"), pick_entry(e, inside, i)))
        s = c + rr
        one = splat(e, 1, rt, batch)

        def up_mask(f, c, ca, r_, g, ra) -> V:
            return e.and_(e.and_(live, e.compare("LT", c, g, "FLOAT")),
                          e.and_(e.compare("LT", e.maximum(e.maximum(f, c), ca), splat(e, sfmax2, rt, batch), "FLOAT"),
                                 e.compare("GT", e.minimum(e.minimum(r_, g), ra), splat(e, sfmin2, rt, batch), "FLOAT")))

        def up(f, c, ca, r_, g, ra) -> list[V]:
            m = up_mask(f, c, ca, r_, g, ra)
            return [e.select(m, x * 2.0, x) for x in (f, c, ca)] + [e.select(m, x * 0.5, x) for x in (r_, g, ra)]

        f, c, ca, rr, _, ra = e.while_([one, c, ca, rr, rr * 0.5, ra],
                                           lambda *v: any_true(e, up_mask(*v)), up)

        def down_mask(f, c, g, ca, r_, ra) -> V:
            return e.and_(e.and_(live, e.compare("GE", g, r_, "FLOAT")),
                          e.and_(e.compare("LT", e.maximum(r_, ra), splat(e, sfmax2, rt, batch), "FLOAT"),
                                 e.compare("GT", e.minimum(e.minimum(f, c), e.minimum(g, ca)), splat(e, sfmin2, rt, batch), "FLOAT")))

        def down(f, c, g, ca, r_, ra) -> list[V]:
            m = down_mask(f, c, g, ca, r_, ra)
            return [e.select(m, x * 0.5, x) for x in (f, c, g, ca)] + [e.select(m, x * 2.0, x) for x in (r_, ra)]

        f, c, _, _, rr, _ = e.while_([f, c, c * 0.5, ca, rr, ra], lambda *v: any_true(e, down_mask(*v)), down)
        di = pick_entry(e, d, i)
        shrink = e.and_(e.and_(e.compare("LT", f, one, "FLOAT"), e.compare("LT", di, one, "FLOAT")),
                        e.compare("LE", f * di, splat(e, sfmin1, rt, batch), "FLOAT"))
        grow = e.and_(e.and_(e.compare("GT", f, one, "FLOAT"), e.compare("GT", di, one, "FLOAT")),
                      e.compare("GE", di, splat(e, sfmax1, rt, batch) / f, "FLOAT"))
        keep = e.and_(e.and_(live, e.compare("LT", c + rr, s * 0.95, "FLOAT")), e.not_(e.or_(shrink, grow)))
        f = e.select(keep, f, one)
        ib = e.broadcast_in_dim(i, batch + [n], [])
        d = e.select(e.compare("EQ", idx, ib, "SIGNED"), e.broadcast_in_dim(di * f, batch + [n], bd), d)
        ishape = e.broadcast_in_dim(i, shape, [])
        fs = e.broadcast_in_dim(f, shape, bd)
        unit = splat(e, 1, rt, shape)
        row_mul = e.select(e.compare("EQ", rows, ishape, "SIGNED"), unit / fs, unit)
        col_mul = e.select(e.compare("EQ", cols, ishape, "SIGNED"), fs, unit)
        if t in COMPLEX_TYPES:  # (the parts scaled alone: a complex product would make inf * 0 = NaN)
            a = e.complex((e.real(a) * row_mul) * col_mul, (e.imag(a) * row_mul) * col_mul)
        else:
            a = (a * row_mul) * col_mul
        return [i + 1, a, d, e.or_(noconv, keep)]

    def sweep(k: V, a: V, d: V, noconv: V) -> list[V]:
        _, a, d, noconv = e.while_([zero_i, a, d, no], lambda i, *_: e.compare("LT", i, e.scalar(n, "i32"), "SIGNED"),
                                       column)
        return [k + 1, a, d, noconv]

    def more(k: V, a: V, d: V, noconv: V) -> V:
        return e.and_(e.compare("LT", k, e.scalar(MAX_BALANCE_SWEEPS, "i32"), "SIGNED"), any_true(e, noconv))

    _, a, d, _ = e.while_([zero_i, a, splat(e, 1, rt, batch + [n]), splat(e, True, "i1", batch)], more, sweep)
    return a, d, piv, lo, hi


def gebak(e: Emitter, v: V, d: V | None, piv: V, lo: V, hi: V, left: bool) -> V:
    """LAPACK ``?gebak`` (``JOB = 'B'``; ``'P'`` when ``d`` is None), as ``gebak`` of the numpy mirror: eigenvectors
    (or Schur vectors) ``v`` ``[*b, n, n]`` (columns) of :func:`gebal`'s matrix made those of ``A``: rows
    multiplied by ``d`` (divided for ``left`` vectors), then rows swapped back by ``piv`` for the positions
    outside ``lo .. hi``, in ``?gebak``'s order (``lo - 1`` down to 0, then ``hi + 1`` up; a ``stablehlo.while``
    over ``ii``, each batch element its own rows)."""
    shape = v.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    bd = list(range(r))
    if d is not None:
        dv = to_elem(e, e.broadcast_in_dim(d, shape, bd + [r]), v.t)
        v = v / dv if left else v * dv

    def step(ii: V, v: V) -> list[V]:
        iib = e.broadcast_in_dim(ii, batch, [])
        below = e.compare("LT", iib, lo, "SIGNED")
        i = e.select(below, lo - splat(e, 1, "i32", batch) - iib, iib)
        go = e.or_(below, e.compare("GT", iib, hi, "SIGNED"))
        k = pick_entry(e, piv, i)
        go = e.and_(go, e.compare("NE", k, i, "SIGNED"))
        return [ii + e.scalar(1, "i32"), _exchange(e, v, i, k, r, e.broadcast_in_dim(go, shape, bd))]

    _, v = e.while_([e.scalar(0, "i32"), v], lambda ii, _: e.compare("LT", ii, e.scalar(n, "i32"), "SIGNED"), step)
    return v
