"""Complex Schur form by LAPACK ``zlahqr``'s single-shift QR algorithm; LAPACK ``cgees`` / ``zgees``.

:func:`complex_schur` reduces to Hessenberg form, then runs QR steps on the lowest unreduced block of each
batch element: Wilkinson's shift and ``zlahqr``'s exceptional shifts, a start row where two consecutive
subdiagonal entries are small, the bulge chased by reflectors of order 2, negligible subdiagonal entries set
to exact zeros by ``zlahqr``'s test with Ahues & Tisseur's refinement (:func:`deflate`, LAPACK Working Note
122). :func:`build_gees` is ``?gees`` without sorting on top of it (permuted first, as ``?gees``). Shared with
:mod:`hlokit.passes.lapack.real_schur`: :func:`deflate`, :func:`unreduced_block`, :func:`rotate_pair` and the
step limits. Sources: LAPACK's ``zlahqr`` and ``zgees`` documentation; Golub & Van Loan, *Matrix
Computations*, 4th ed., §7.5. The numpy mirror: ``tests/pytest/lapack_reference.py`` (``geev``).
"""

from __future__ import annotations

from typing import Callable

from hlokit.passes.builder import COMPLEX_TYPES, V, Emitter
from hlokit.passes.lapack.balance import gebak, gebal
from hlokit.passes.lapack.hessenberg import hessenberg_with_q, zero_below_subdiagonal
from hlokit.passes.lapack.householder import householder
from hlokit.passes.lapack.matrix import (
    any_true, column_of, conj, diagonal_of, finfo, has_nan, magnitude, pick_entry, real_type, reduce_with,
    shift_down, shift_up, slice_dim, splat, subdiagonal_mask, subdiagonal_of, superdiagonal_of, to_elem,
)

__all__ = [
    "MAX_QR_STEPS_PER_EIGENVALUE", "EXCEPTIONAL_SHIFT_EVERY", "rotate_pair", "deflate",
    "unreduced_block", "complex_schur", "build_gees",
]


#: Shifted QR steps at most, per eigenvalue (``MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10)`` in all; LAPACK's
#: ``?lahqr`` allows 30 per eigenvalue as well).
MAX_QR_STEPS_PER_EIGENVALUE = 30


#: Every this many QR steps the shift is an exceptional one (``?lahqr`` uses them at steps 10 and 20 without
#: deflation): it breaks the cycles of the Wilkinson shift (a cyclic permutation matrix never converges
#: without one).
EXCEPTIONAL_SHIFT_EVERY = 10


def _update_pair(e: Emitter, x: V, k: V, rows: bool, update: Callable[[V, V, list[int]], tuple[V, V]],
                 edit: Callable[[V, V], V] | None = None) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` (``rows``) or columns ``k, k+1`` replaced by ``update(x0, x1,
    one)`` of the two (each of shape ``one``: ``[*b, 1, n]`` or ``[*b, n, 1]``). The pair by ``dynamic_slice``,
    back by ``dynamic_update_slice`` (``k`` 0-d i32; a start out of range is clamped, as the ops define);
    ``edit(old, new)``: the pair written back, from the pair before and after (default ``new``)."""
    shape = x.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    zero = e.scalar(0, "i32")
    dim = r if rows else r + 1
    size = batch + ([2, n] if rows else [n, 2])
    starts = [zero] * r + ([k, zero] if rows else [zero, k])
    pair = e.dynamic_slice(x, starts, size)
    one = list(size)
    one[dim] = 1
    new = e.concatenate(list(update(slice_dim(e, pair, dim, 0, 1), slice_dim(e, pair, dim, 1, 2), one)), dim)
    return e.dynamic_update_slice(x, edit(pair, new) if edit is not None else new, starts)


def rotate_pair(e: Emitter, x: V, k: V, c: V, s: V, rows: bool) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` replaced by ``G`` times them (``rows``), or columns ``k, k+1``
    by them times ``G^H``, for the rotation ``G = [[c, s], [-conj(s), c]]`` (``c``, ``s`` ``[*b]``;
    :func:`_update_pair`)."""
    r = len(x.shape) - 2

    def update(x0: V, x1: V, one: list[int]) -> tuple[V, V]:
        cb, sb = (e.broadcast_in_dim(v, one, list(range(r))) for v in (c, s))
        if rows:
            return cb * x0 + sb * x1, cb * x1 - conj(e, sb) * x0
        return cb * x0 + conj(e, sb) * x1, cb * x1 - sb * x0

    return _update_pair(e, x, k, rows, update)


def _at(e: Emitter, x: V, i: V, j: V) -> V:
    """``x[..., i, j]`` as ``[*b]`` for per-batch-element indices ``i``, ``j`` (``[*b]`` i32): one-hot masks
    and a ``reduce`` add (0 where an index is out of range)."""
    shape = x.shape
    r = len(shape) - 2
    bd = list(range(r))
    hit = e.and_(e.compare("EQ", e.iota(shape, r, "i32"), e.broadcast_in_dim(i, shape, bd), "SIGNED"),
                 e.compare("EQ", e.iota(shape, r + 1, "i32"), e.broadcast_in_dim(j, shape, bd), "SIGNED"))
    return e.reduce_sum(e.select(hit, x, splat(e, 0, x.t, shape)), [r, r + 1])


def _cabs1(e: Emitter, x: V) -> V:
    """LAPACK's ``CABS1``: ``|Re x| + |Im x|`` of a complex ``x``, in the real element type."""
    return e.abs(e.real(x)) + e.abs(e.imag(x))


def deflate(e: Emitter, h: V, eps: float, tiny: float) -> V:
    """``h`` (real, or complex with a real subdiagonal) with each negligible subdiagonal entry ``h[k, k-1]`` set
    to exactly 0 by the test of ``?lahqr`` (real) / ``zlahqr`` (complex), with ``|x|`` for ``CABS1`` on real
    input: ``CABS1(h[k, k-1]) <= smlnum``, or ``|Re h[k, k-1]| <= eps tst`` with ``tst = CABS1(h[k-1, k-1]) +
    CABS1(h[k, k])`` (the neighbouring subdiagonal entries where that is 0) and Ahues & Tisseur's refinement
    (LAPACK Working Note 122) ``ba (ab / s) <= max(smlnum, eps bb (aa / s))``: ``ab`` / ``ba`` the larger /
    smaller of ``CABS1`` of ``h[k, k-1]`` and ``h[k-1, k]``, ``aa`` / ``bb`` of ``h[k, k]`` and ``h[k-1, k-1] -
    h[k, k]``, ``s = aa + ab``; ``smlnum = tiny n / eps``. The refinement keeps an entry small next to the
    diagonal but not next to how far apart the block's eigenvalues are (``[[1, 1], [1e-17, 1]]`` in f64:
    eigenvalues ``1 +- 3.2e-9``, which the classical test alone rounds to ``1, 1``)."""
    shape = h.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    rt = real_type(h.t)
    vec = batch + [n]
    smlnum = tiny * (n / eps)
    complex_h = h.t in COMPLEX_TYPES
    mag = (lambda x: _cabs1(e, x)) if complex_h else e.abs
    sub, d = subdiagonal_of(e, h), diagonal_of(e, h)  # sub[k] = h[k, k-1]
    d_prev, sup_prev = shift_down(e, d), shift_down(e, superdiagonal_of(e, h))  # h[k-1, k-1], h[k-1, k]
    c = mag(sub)
    zero = splat(e, 0, rt, vec)
    tst = mag(d_prev) + mag(d)
    re_sub = e.abs(e.real(sub)) if complex_h else c
    tst = e.select(e.compare("EQ", tst, zero, "FLOAT"), tst + shift_down(e, re_sub) + shift_up(e, re_sub), tst)
    csup = mag(sup_prev)
    ab, ba = e.maximum(c, csup), e.minimum(c, csup)
    cd, cdd = mag(d), mag(d_prev - d)
    aa, bb = e.maximum(cd, cdd), e.minimum(cd, cdd)
    s = aa + ab
    s = e.select(e.compare("EQ", s, zero, "FLOAT"), splat(e, 1, rt, vec), s)  # (s = 0 only where h[k, k-1] = 0)
    small_num = splat(e, smlnum, rt, vec)
    refined = e.compare("LE", ba * (ab / s), e.maximum(small_num, bb * (aa / s) * eps), "FLOAT")
    small = e.or_(e.compare("LE", c, small_num, "FLOAT"),
                  e.and_(e.compare("LE", re_sub, tst * eps, "FLOAT"), refined))
    small = e.and_(e.broadcast_in_dim(small, shape, list(range(r)) + [r]), subdiagonal_mask(e, shape))
    return e.select(small, splat(e, 0, h.t, shape), h)


def _reflect_pair(e: Emitter, x: V, k: V, tau: V, v2: V, rows: bool,
                  edit: Callable[[V, V], V] | None = None) -> V:
    """``x`` ``[*b, n, n]`` with rows ``k, k+1`` replaced by ``G^H`` times them (``rows``) or columns ``k, k+1``
    by them times ``G = I - tau v v^H``, ``v = [1, v2]`` (``tau``, ``v2`` ``[*b]``, ``tau v2`` real), in ``zlahqr``'s
    arithmetic: ``sum = conj(tau) x0 + Re(tau v2) x1; x0 - sum, x1 - sum v2`` (rows), ``sum = tau x0 +
    Re(tau v2) x1; x0 - sum, x1 - sum conj(v2)`` (columns); ``edit``: see :func:`_update_pair`. ``k`` 0-d
    i32, ``k + 1 < n``."""
    bd = list(range(len(x.shape) - 2))
    t2 = to_elem(e, e.real(tau * v2), x.t)

    def update(x0: V, x1: V, one: list[int]) -> tuple[V, V]:
        tb, t2b, vb = (e.broadcast_in_dim(v, one, bd) for v in (tau, t2, v2))
        if rows:
            total = conj(e, tb) * x0 + t2b * x1
            return x0 - total, x1 - total * vb
        total = tb * x0 + t2b * x1
        return x0 - total, x1 - total * conj(e, vb)

    return _update_pair(e, x, k, rows, update, edit)


def _scale_where(e: Emitter, x: V, where: V, factor: V) -> V:
    """``x`` ``[*b, n, n]`` with the entries ``where`` (i1, same shape) multiplied by ``factor`` (``[*b]``)."""
    shape = x.shape
    return e.select(where, x * e.broadcast_in_dim(factor, shape, list(range(len(shape) - 2))), x)


def unreduced_block(e: Emitter, h: V, min_order: int = 3) -> tuple[V, V, V]:
    """``(live, lo, hi)`` per batch element of a Hessenberg-in-progress ``h``: ``live`` (i1) when an unreduced
    diagonal block has order ``min_order`` (2 or 3) or more and ``h`` has no NaN; ``hi`` the last row of the
    lowest such block, ``lo`` its first row (i32). Order 3 (real quasi-triangular form: its 2x2 blocks stay)
    needs two adjacent non-zero subdiagonal entries, order 2 one."""
    shape = h.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    vec = batch + [n]
    nz = e.compare("NE", subdiagonal_of(e, h), splat(e, 0, h.t, vec), "FLOAT")
    big = e.and_(nz, shift_down(e, nz)) if min_order == 3 else nz
    idx = e.iota(vec, r, "i32")
    zero = splat(e, 0, "i32", vec)

    hi = reduce_with(e, e.select(big, idx, zero), r, 0, "maximum")
    lo = reduce_with(e, e.select(e.and_(e.not_(nz), e.compare("LT", idx, e.broadcast_in_dim(hi, vec, list(range(r))),
                                                        "SIGNED")), idx, zero), r, 0, "maximum")
    some = reduce_with(e, big, r, False, "or")
    return e.and_(some, e.not_(has_nan(e, h))), lo, hi


def complex_schur(e: Emitter, a: V) -> tuple[V, V, V]:
    """Complex Schur form ``A = Z T Z^H`` of a complex ``a`` ``[*b, n, n]``: ``(T, Z, info)``, by LAPACK
    ``zlahqr``'s single-shift QR algorithm (the one ``?hseqr`` runs below order 75).

    Hessenberg reduction (:func:`hessenberg_with_q`: real subdiagonal), then QR steps on the lowest
    unreduced block ``[lo, hi]`` of each batch element (``stablehlo.while`` while one has a non-zero
    subdiagonal entry, at most :data:`MAX_QR_STEPS_PER_EIGENVALUE` ``* max(n, 10)`` steps), as ``zlahqr``:
    Wilkinson's shift (the eigenvalue of the trailing 2x2 block nearer ``h[hi, hi]``), an exceptional shift
    every :data:`EXCEPTIONAL_SHIFT_EVERY` steps since the block's bottom last deflated (from the block's top,
    every second time from its bottom); the step starts at the lowest row ``m`` where starting makes
    ``h[m, m-1]`` negligible (two consecutive small subdiagonal entries), else at ``lo``; the bulge is chased
    by reflectors of order 2 (:func:`householder`, :func:`_reflect_pair`; one loop over ``k`` for all batch
    elements, the identity outside each one's ``[m, hi)``), the subdiagonal kept real (the rescaling after a
    start at ``m > lo``, and of row / column ``hi`` after the step); negligible subdiagonal entries become
    exact zeros by ``zlahqr``'s test (:func:`deflate`). ``info`` (i32 ``[*b]``) is 1 where a
    subdiagonal entry is left or ``T`` has a NaN, else 0.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    rt = real_type(t)
    fi = finfo(rt)
    eps, tiny = float(fi.eps), float(fi.tiny)
    h, z = hessenberg_with_q(e, a)
    h = deflate(e, h, eps, tiny)
    if n < 2:
        return h, z, splat(e, 0, "i32", batch)
    bd = list(range(r))
    vec = batch + [n]
    zero_i = e.scalar(0, "i32")
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(vec, r, "i32")
    zero = splat(e, 0, rt, batch)

    def safe(x: V) -> V:  # (a real divisor: 1 where it is 0)
        return e.select(e.compare("EQ", x, splat(e, 0, x.t, x.shape), "FLOAT"), splat(e, 1, x.t, x.shape), x)

    def elem(x: V) -> V:
        return to_elem(e, x, t)

    def step(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> list[V]:
        # (live, lo, hi): unreduced_block of h, carried from the end of the previous step (or from before the loop)
        kdefl = e.select(e.compare("EQ", hi, last_hi, "SIGNED"), kdefl + 1, splat(e, 1, "i32", batch))
        d, sub, sup = diagonal_of(e, h), subdiagonal_of(e, h), superdiagonal_of(e, h)
        hii, him, hmi, hmm, hll, hl1 = (pick_entry(e, v, i) for v, i in (
            (d, hi), (sub, hi), (sup, hi - 1), (d, hi - 1), (d, lo), (sub, lo + 1)))
        # Wilkinson's shift, in zlahqr's form: h[hi, hi] - u^2 / (x + y), y = +-sqrt(x^2 + u^2) aligned with x
        u = e.sqrt(hmi) * e.sqrt(him)
        su = _cabs1(e, u)
        x = (hmm - hii) * 0.5
        sx = _cabs1(e, x)
        s = safe(e.maximum(su, sx))
        y = elem(s) * e.sqrt((x / elem(s)) * (x / elem(s)) + (u / elem(s)) * (u / elem(s)))
        xn = x / elem(safe(sx))
        against = e.compare("LT", e.real(xn) * e.real(y) + e.imag(xn) * e.imag(y), zero, "FLOAT")
        y = e.select(e.and_(e.compare("GT", sx, zero, "FLOAT"), against), -y, y)
        xy = x + y
        xy = e.select(e.compare("EQ", magnitude(e, xy), zero, "FLOAT"), splat(e, 1, t, batch), xy)
        shift = e.select(e.compare("NE", su, zero, "FLOAT"), hii - u * (u / xy), hii)
        # exceptional shifts (zlahqr): from the block's top every EXCEPTIONAL_SHIFT_EVERY steps without a
        # deflation at its bottom, from its bottom every second time
        zero_b = splat(e, 0, "i32", batch)
        bottom, top = (e.compare("EQ", e.remainder(kdefl, splat(e, every, "i32", batch)), zero_b, "SIGNED")
                       for every in (2 * EXCEPTIONAL_SHIFT_EVERY, EXCEPTIONAL_SHIFT_EVERY))
        shift = e.select(top, elem(e.abs(e.real(hl1)) * 0.75) + hll, shift)
        shift = e.select(bottom, elem(e.abs(e.real(him)) * 0.75) + hii, shift)
        # the start row m: the lowest row in (lo, hi) at which starting the step makes h[m, m-1] negligible
        d_next, h21 = shift_up(e, d), e.real(shift_up(e, sub))  # h[j+1, j+1], Re h[j+1, j]
        h11s = d - e.broadcast_in_dim(shift, vec, bd)
        sc = safe(_cabs1(e, h11s) + e.abs(h21))
        h11s, h21 = h11s / elem(sc), h21 / sc
        negligible = e.compare("LE", e.abs(e.real(sub)) * e.abs(h21),
                           _cabs1(e, h11s) * (_cabs1(e, d) + _cabs1(e, d_next)) * eps, "FLOAT")
        lob, hib = (e.broadcast_in_dim(v, vec, bd) for v in (lo, hi))
        inside = e.and_(e.compare("GT", idx, lob, "SIGNED"), e.compare("LT", idx, hib, "SIGNED"))
        m = reduce_with(e, e.select(e.and_(negligible, inside), idx, lob), r, 0, "maximum")
        x0, y0 = pick_entry(e, h11s, m), elem(pick_entry(e, h21, m))
        rescale = e.and_(live, e.compare("GT", m, lo, "SIGNED"))
        mb, hib2 = (e.broadcast_in_dim(v, shape, bd) for v in (m, hi))

        def in_set(i: V) -> V:  # the rows / columns zlahqr rescales after a start at m > lo: m .. hi but m + 1
            return e.and_(e.and_(e.compare("GE", i, mb, "SIGNED"), e.compare("LE", i, hib2, "SIGNED")),
                          e.compare("NE", i, mb + 1, "SIGNED"))

        def rescaled(now: V, temp: V, h: V, z: V) -> list[V]:
            # zlahqr's rescaling after the first reflector of a step started at m > lo (keeps h[m+1, m] real):
            # row i of S right of the diagonal times temp, column j of S above it (and Z's) times conj(temp),
            # h[m+1, m] times conj(temp), h[m+2, m+1] times temp
            now = e.broadcast_in_dim(now, shape, bd)
            ctemp = conj(e, temp)
            h = _scale_where(e, h, e.and_(now, e.and_(e.compare("EQ", rows, mb + 1, "SIGNED"),
                                                      e.compare("EQ", cols, mb, "SIGNED"))), ctemp)
            h = _scale_where(e, h, e.and_(now, e.and_(e.compare("EQ", rows, mb + 2, "SIGNED"),
                                                      e.compare("EQ", cols, mb + 1, "SIGNED"))), temp)
            h = _scale_where(e, h, e.and_(now, e.and_(in_set(rows), e.compare("GT", cols, rows, "SIGNED"))), temp)
            h = _scale_where(e, h, e.and_(now, e.and_(in_set(cols), e.compare("LT", rows, cols, "SIGNED"))), ctemp)
            return [h, _scale_where(e, z, e.and_(now, in_set(cols)), ctemp)]

        pair_cols = e.iota(batch + [2, n], r + 1, "i32")
        pair_rows = e.iota(batch + [2, n], r, "i32")

        def chase(k: V, h: V, z: V) -> list[V]:
            kb = e.broadcast_in_dim(k, batch, [])
            first = e.compare("EQ", m, kb, "SIGNED")
            active = e.and_(live, e.and_(e.compare("GE", kb, m, "SIGNED"), e.compare("LT", kb, hi, "SIGNED")))
            col = column_of(e, h, k - 1)  # (k = 0: column 0, unused: only k = m reads no column)
            pair = [e.reshape(e.select(first, x0, pick_entry(e, col, k)), batch + [1]),
                    e.reshape(e.select(first, y0, pick_entry(e, col, k + 1)), batch + [1])]
            v, tau, beta = householder(e, e.concatenate(pair, r), zero_i)  # (zlarfg of order 2)
            v2 = e.reshape(slice_dim(e, v, r, 1, 2), batch)
            tau = e.select(active, tau, splat(e, 0, t, batch))
            v2 = e.select(active, v2, splat(e, 0, t, batch))
            two = batch + [2, n]
            kp = e.broadcast_in_dim(k, two, [])
            chased = e.and_(e.broadcast_in_dim(e.and_(active, e.not_(first)), two, bd),
                            e.compare("EQ", pair_cols, kp - 1, "SIGNED"))
            exact = e.select(e.compare("EQ", pair_rows, splat(e, 0, "i32", two), "SIGNED"),
                             e.broadcast_in_dim(beta, two, bd), splat(e, 0, t, two))

            def edit(old: V, new: V) -> V:  # columns before k unchanged (zlahqr: columns k ..); below the first
                # step, the entries of column k-1 the reflector sets exactly (beta and 0)
                return e.select(chased, exact, e.select(e.compare("LT", pair_cols, kp, "SIGNED"), old, new))

            h = _reflect_pair(e, h, k, tau, v2, rows=True, edit=edit)
            h = _reflect_pair(e, h, k, tau, v2, rows=False)
            z = _reflect_pair(e, z, k, tau, v2, rows=False)
            now = e.and_(rescale, e.and_(active, first))
            temp = splat(e, 1, t, batch) - tau
            temp = temp / elem(safe(magnitude(e, temp)))
            # (O(n^2): run only where a batch element rescales at this k, as a loop of at most one iteration)
            _, _, h, z = e.while_([any_true(e, now), now, h, z], lambda go, *_: go,
                                      lambda go, now, h, z: [e.const(False, t="i1", shape=()), now,
                                                             *rescaled(now, temp, h, z)])
            return [k + 1, h, z]

        _, h, z = e.while_([zero_i, h, z], lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                               chase)
        # h[hi, hi-1] made real: row hi (right of it) times conj(p), column hi (above it) and Z's times p
        last = _at(e, h, hi, hi - 1)
        mag = magnitude(e, last)
        p = last / elem(safe(mag))
        now = e.broadcast_in_dim(e.and_(live, e.compare("NE", e.imag(last), zero, "FLOAT")), shape, bd)
        at_row, at_col = e.compare("EQ", rows, hib2, "SIGNED"), e.compare("EQ", cols, hib2, "SIGNED")
        h = _scale_where(e, h, e.and_(now, e.and_(at_row, e.compare("GT", cols, hib2, "SIGNED"))), conj(e, p))
        h = _scale_where(e, h, e.and_(now, e.and_(at_col, e.compare("LT", rows, hib2, "SIGNED"))), p)
        h = e.select(e.and_(now, e.and_(at_row, e.compare("EQ", cols, hib2 - 1, "SIGNED"))),
                     e.broadcast_in_dim(elem(mag), shape, bd), h)
        z = _scale_where(e, z, e.and_(now, at_col), p)
        h = deflate(e, zero_below_subdiagonal(e, h), eps, tiny)
        return [it + 1, kdefl, hi, *unreduced_block(e, h, min_order=2), h, z]

    def more(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> V:
        return e.and_(e.compare("LT", it, e.scalar(MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10), "i32"), "SIGNED"),
                      any_true(e, live))

    no_step, no_row = splat(e, 0, "i32", batch), splat(e, -1, "i32", batch)  # (kdefl, last_hi before step 1)
    _, _, _, live, _, _, h, z = e.while_([zero_i, no_step, no_row, *unreduced_block(e, h, min_order=2), h, z],
                                             more, step)
    info = e.select(e.or_(live, has_nan(e, h)), splat(e, 1, "i32", batch), splat(e, 0, "i32", batch))
    return e.select(e.compare("GT", rows, cols, "SIGNED"), splat(e, 0, t, shape), h), z, info


def build_gees(e: Emitter, a: V, vectors: bool) -> list[V]:
    """``cgees`` / ``zgees`` of a complex ``a`` (``[*b, n, n]``, no sorting): ``[t, vs, w, sdim, info]``: the
    complex Schur form ``A = Z T Z^H`` of :func:`complex_schur` (``T`` upper triangular, ``Z`` unitary; zeros when
    not ``vectors``), the eigenvalues ``diag(T)``, ``sdim`` 0 (nothing is sorted) and ``info`` (1 where the
    QR steps did not converge or the input has a NaN). ``T`` is unique only up to the order of its diagonal
    and a phase per Schur vector, so it may differ from LAPACK's by those. As ``?gees``, ``A`` is permuted first
    (:func:`gebal` without scaling: ``?gebal`` with ``JOB = 'P'``) and the Schur vectors' rows swapped back
    (:func:`gebak`), so a matrix that is triangular up to a permutation gets LAPACK's ``T`` exactly."""
    shape = a.shape
    batch = shape[:-2]
    b, *balance = gebal(e, a, scale=False)
    t, z, info = complex_schur(e, b)
    z = gebak(e, z, *balance, left=False) if vectors else splat(e, 0, a.t, shape)
    return [t, z, diagonal_of(e, t), splat(e, 0, "i32", batch), info]
