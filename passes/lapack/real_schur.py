"""Real Schur form by Francis double-shift QR steps; LAPACK ``sgees`` / ``dgees``.

:func:`real_schur` reduces to Hessenberg form, then runs Francis double-shift steps (Golub & Van Loan,
*Matrix Computations*, 4th ed., Alg. 7.5.1) with ``?lahqr``'s shifts and deflation test, and standardises
every remaining 2x2 block with LAPACK ``?lanv2``. :func:`build_gees_real` is ``?gees`` without sorting on
top of it. Sources: LAPACK's ``dlahqr``, ``dlanv2`` and ``dgees`` documentation. The numpy mirror:
``tests/pytest/lapack_reference.py`` (``real_schur``, ``lanv2``).
"""

from __future__ import annotations

from hlokit.passes.builder import V, Emitter
from hlokit.passes.lapack.balance import gebak, gebal
from hlokit.passes.lapack.hessenberg import hessenberg_with_q, zero_below_subdiagonal
from hlokit.passes.lapack.householder import householder, reflect_left, reflect_right
from hlokit.passes.lapack.matrix import (
    any_true, column_of, diagonal_of, finfo, has_nan, hypot, pick_entry, shift_down, slice_dim, splat,
    subdiagonal_of, superdiagonal_of,
)
from hlokit.passes.lapack.schur import (
    EXCEPTIONAL_SHIFT_EVERY, MAX_QR_STEPS_PER_EIGENVALUE, deflate, rotate_pair, unreduced_block,
)

__all__ = ["real_schur", "build_gees_real"]


def _sign(e: Emitter, x: V) -> V:
    """Fortran's ``SIGN(1, x)``: 1 for ``x >= 0``, else -1."""
    return e.select(e.compare("GE", x, splat(e, 0, x.t, x.shape), "FLOAT"), splat(e, 1, x.t, x.shape),
                    splat(e, -1, x.t, x.shape))


def _lanv2(e: Emitter, a: V, b: V, c: V, d: V, eps: float) -> tuple[V, ...]:
    """LAPACK ``?lanv2`` on the real 2x2 blocks ``[[a, b], [c, d]]`` (each ``[*b]``), every branch computed
    and chosen by ``select``: ``(a', b', c', d', cs, sn)`` with ``[[a, b], [c, d]] = G^T [[a', b'], [c', d']] G``,
    ``G = [[cs, sn], [-sn, cs]]``; the result is upper triangular (``c' = 0``) for real eigenvalues, else
    standardised: ``a' = d'`` and ``b' c' < 0``."""
    shape = a.shape
    t = a.t

    def k(v):
        return splat(e, v, t, shape)

    def safe(x):
        return e.select(e.compare("EQ", x, k(0), "FLOAT"), k(1), x)

    case1 = e.compare("EQ", c, k(0), "FLOAT")
    case2 = e.and_(e.not_(case1), e.compare("EQ", b, k(0), "FLOAT"))
    case3 = e.and_(e.and_(e.not_(e.or_(case1, case2)), e.compare("EQ", a - d, k(0), "FLOAT")),
                   e.compare("NE", _sign(e, b), _sign(e, c), "FLOAT"))
    gen = e.not_(e.or_(e.or_(case1, case2), case3))
    temp = a - d
    p = temp * 0.5
    bcmax = e.maximum(e.abs(b), e.abs(c))
    bcmis = e.minimum(e.abs(b), e.abs(c)) * _sign(e, b) * _sign(e, c)
    scale = safe(e.maximum(e.abs(p), bcmax))
    z = p / scale * p + bcmax / scale * bcmis
    real = e.and_(gen, e.compare("GE", z, k(4 * eps), "FLOAT"))
    cplx = e.and_(gen, e.not_(real))
    # real eigenvalues: upper triangular at once
    zr = p + _sign(e, p) * e.sqrt(scale) * e.sqrt(e.maximum(z, k(0)))
    ra, rd = d + zr, d - bcmax / safe(zr) * bcmis
    tau = safe(hypot(e, c, zr))
    rcs, rsn, rb = zr / tau, c / tau, b - c
    # complex (or nearly equal real) eigenvalues: equal diagonal first
    sigma = b + c
    tau = safe(hypot(e, sigma, temp))
    ccs = e.sqrt((e.abs(sigma) / tau + 1.0) * 0.5)
    csn = -(p / (tau * ccs)) * _sign(e, sigma)
    aa, bb = a * ccs + b * csn, b * ccs - a * csn
    cc, dd = c * ccs + d * csn, d * ccs - c * csn
    ca, cb = aa * ccs + cc * csn, bb * ccs + dd * csn
    cc, cd = cc * ccs - aa * csn, dd * ccs - bb * csn
    mid = (ca + cd) * 0.5
    c_nz = e.compare("NE", cc, k(0), "FLOAT")
    b_nz = e.compare("NE", cb, k(0), "FLOAT")
    same = e.and_(e.and_(c_nz, b_nz), e.compare("EQ", _sign(e, cb), _sign(e, cc), "FLOAT"))  # real after all
    sab, sac = e.sqrt(e.abs(cb)), e.sqrt(e.abs(cc))
    pp = _sign(e, cc) * sab * sac
    tt = 1.0 / e.sqrt(e.select(same, e.abs(cb + cc), k(1)))
    cs1, sn1 = sab * tt, sac * tt
    swap = e.and_(c_nz, e.not_(b_nz))
    o_a = e.select(same, mid + pp, mid)
    o_d = e.select(same, mid - pp, mid)
    o_b = e.select(same, cb - cc, e.select(swap, -cc, cb))
    o_c = e.select(e.or_(same, swap), k(0), cc)
    o_cs = e.select(same, ccs * cs1 - csn * sn1, e.select(swap, -csn, ccs))
    o_sn = e.select(same, ccs * sn1 + csn * cs1, e.select(swap, ccs, csn))

    def pick(c2, r, x, keep):
        return e.select(case2, c2, e.select(real, r, e.select(cplx, x, keep)))

    return (pick(d, ra, o_a, a), pick(-c, rb, o_b, b), pick(k(0), k(0), o_c, c), pick(a, rd, o_d, d),
            pick(k(0), rcs, o_cs, k(1)), pick(k(1), rsn, o_sn, k(0)))


def real_schur(e: Emitter, a: V) -> tuple[V, V, V, V, V]:
    """Real Schur form ``A = Z T Z^T`` of a real ``a`` ``[*b, n, n]`` (LAPACK ``?gees`` / ``?lahqr``):
    ``(T, Z, wr, wi, info)``.

    Hessenberg reduction (:func:`hessenberg_with_q`), then Francis double-shift QR steps (Golub & Van Loan,
    *Matrix Computations*, 4th ed., Alg. 7.5.1) while a batch element has an unreduced block of order 3 or
    more (at most :data:`MAX_QR_STEPS_PER_EIGENVALUE` ``* max(n, 10)`` steps) with ``?lahqr``'s shifts: the
    eigenvalues of the trailing 2x2 block of the lowest such block ``[lo, hi]`` when complex, twice the one
    nearer its last diagonal entry when real (so eigenvalues deflate in LAPACK's order far more often), and
    its exceptional ones after every :data:`EXCEPTIONAL_SHIFT_EVERY` steps in which ``hi`` stayed; the bulge
    chased by 3-element Householder reflectors ``k = lo .. hi - 1``
    (one ``stablehlo.while`` over ``k`` for all batch elements, the identity outside each one's block),
    negligible subdiagonal entries set to exact zeros after each step. Then every remaining 2x2 block is
    standardised by :func:`_lanv2` (split when its eigenvalues are real). ``wr`` / ``wi``: the eigenvalues,
    a conjugate pair as ``(x, +y), (x, -y)``; ``info`` 1 where the steps did not converge or ``T`` has a NaN.
    """
    shape = a.shape
    r = len(shape) - 2
    batch, n = shape[:r], shape[r]
    t = a.t
    bd = list(range(r))
    vec = batch + [n]
    eps, tiny = float(finfo(t).eps), float(finfo(t).tiny)
    zero_i = e.scalar(0, "i32")
    h, z = hessenberg_with_q(e, a)
    h = deflate(e, h, eps, tiny)
    rows, cols = e.iota(shape, r, "i32"), e.iota(shape, r + 1, "i32")
    idx = e.iota(vec, r, "i32")

    def step(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> list[V]:
        # (live, lo, hi): unreduced_block of h, carried from the end of the previous step (or from before the loop)
        # steps since the block's bottom last moved (?lahqr's KDEFL): it picks the exceptional shifts
        kdefl = e.select(e.compare("EQ", hi, last_hi, "SIGNED"), kdefl + 1, splat(e, 1, "i32", batch))
        l1, l2 = lo + 1, lo + 2
        d, sub, sup = diagonal_of(e, h), subdiagonal_of(e, h), superdiagonal_of(e, h)  # h[i, i], h[i, i-1], h[i, i+1]
        entries = [pick_entry(e, v, i) for v, i in ((d, hi), (d, hi - 1), (sup, hi - 1), (sub, hi), (sub, hi - 1),
                                               (d, lo), (sup, lo), (sub, l1), (d, l1), (sub, l2))]
        # the bulge's first column is quadratic in H: computed from entries divided by their largest magnitude
        # (the reflector of a multiple of a vector is that of the vector), so it neither overflows nor underflows
        big = e.abs(entries[0])
        for x in entries[1:]:
            big = e.maximum(big, e.abs(x))
        big = e.select(e.compare("EQ", big, splat(e, 0, t, batch), "FLOAT"), splat(e, 1, t, batch), big)
        hh, hm, hmh, hhm, hm2, h00, h01, h10, h11_, h21 = (x / big for x in entries)
        s, p = hm + hh, hm * hh - hmh * hhm
        # ?lahqr's shifts: the trailing 2x2 block's eigenvalues when complex; when real, both the one nearer
        # hh (a double real shift), which deflates the eigenvalues in LAPACK's order far more often
        tr = s * 0.5
        det = p - tr * tr
        real = e.compare("LT", det, splat(e, 0, t, batch), "FLOAT")
        root = e.sqrt(e.maximum(-det, splat(e, 0, t, batch)))
        rt = tr + e.select(e.compare("GE", hh, tr, "FLOAT"), root, -root)
        s, p = e.select(real, rt * 2.0, s), e.select(real, rt * rt, p)
        # exceptional shifts every EXCEPTIONAL_SHIFT_EVERY steps without deflation: from the block's top, every
        # second time from its bottom (?lahqr)
        zero = splat(e, 0, "i32", batch)
        bottom, top = (e.compare("EQ", e.remainder(kdefl, splat(e, every, "i32", batch)), zero, "SIGNED")
                       for every in (2 * EXCEPTIONAL_SHIFT_EVERY, EXCEPTIONAL_SHIFT_EVERY))
        ss = e.select(bottom, e.abs(hhm) + e.abs(hm2), e.abs(h10) + e.abs(h21))
        h11 = ss * 0.75 + e.select(bottom, hh, h00)
        s = e.select(top, h11 * 2.0, s)  # (bottom implies top)
        p = e.select(top, h11 * h11 + ss * ss * 0.4375, p)
        x0 = h00 * h00 + h01 * h10 - s * h00 + p
        y0 = h10 * (h00 + h11_ - s)
        z0 = h10 * h21

        def chase(k: V, h: V, z: V) -> list[V]:
            col = column_of(e, h, k - 1)  # (k = 0: column 0, unused: k = lo there)
            at_lo = e.compare("EQ", lo, e.broadcast_in_dim(k, batch, []), "SIGNED")
            kb = e.broadcast_in_dim(k, batch, [])
            active = e.and_(live, e.and_(e.compare("GE", kb, lo, "SIGNED"), e.compare("LT", kb, hi, "SIGNED")))
            x = e.select(at_lo, x0, pick_entry(e, col, k))
            y = e.select(at_lo, y0, pick_entry(e, col, k + 1))
            w = e.select(at_lo, z0, pick_entry(e, col, k + 2))
            w = e.select(e.compare("GT", kb + 2, hi, "SIGNED"), splat(e, 0, t, batch), w)
            kv = e.broadcast_in_dim(k, vec, [])
            target = e.select(e.compare("EQ", idx, kv, "SIGNED"), e.broadcast_in_dim(x, vec, bd),
                              e.select(e.compare("EQ", idx, kv + 1, "SIGNED"), e.broadcast_in_dim(y, vec, bd),
                                       e.select(e.compare("EQ", idx, kv + 2, "SIGNED"), e.broadcast_in_dim(w, vec, bd),
                                                splat(e, 0, t, vec))))
            v, tau, _ = householder(e, target, k)
            tau = e.select(active, tau, splat(e, 0, t, batch))
            h = reflect_right(e, reflect_left(e, h, v, tau), v, tau)
            ks = e.broadcast_in_dim(k, shape, [])
            bulge = e.and_(e.compare("EQ", cols, ks - 1, "SIGNED"), e.compare("GE", rows, ks + 1, "SIGNED"))
            h = e.select(bulge, splat(e, 0, t, shape), h)  # the entries the reflector zeroes: exactly 0
            return [k + 1, h, reflect_right(e, z, v, tau)]

        out = e.while_([zero_i, h, z], lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"), chase)
        h = deflate(e, zero_below_subdiagonal(e, out[1]), eps, tiny)
        return [it + 1, kdefl, hi, *unreduced_block(e, h), h, out[2]]

    def more(it: V, kdefl: V, last_hi: V, live: V, lo: V, hi: V, h: V, z: V) -> V:
        return e.and_(e.compare("LT", it, e.scalar(MAX_QR_STEPS_PER_EIGENVALUE * max(n, 10), "i32"), "SIGNED"),
                      any_true(e, live))

    blocks = unreduced_block(e, h)
    live = blocks[0]
    if n >= 3:
        no_step, no_row = splat(e, 0, "i32", batch), splat(e, -1, "i32", batch)  # (kdefl, last_hi before step 1)
        _, _, _, live, _, _, h, z = e.while_([zero_i, no_step, no_row, *blocks, h, z], more, step)
    info = e.select(e.or_(live, has_nan(e, h)), splat(e, 1, "i32", batch), splat(e, 0, "i32", batch))

    def standardise(k: V, h: V, z: V) -> list[V]:
        block = e.dynamic_slice(h, [zero_i] * r + [k, k], batch + [2, 2])
        pa, pb, pc, pd = (e.reshape(e.slice(block, [0] * r + [i, j], batch + [i + 1, j + 1]), batch)
                          for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
        na, nb, nc, nd, cs, sn = _lanv2(e, pa, pb, pc, pd, eps)
        here = e.compare("NE", pc, splat(e, 0, t, batch), "FLOAT")
        cs = e.select(here, cs, splat(e, 1, t, batch))
        sn = e.select(here, sn, splat(e, 0, t, batch))
        h = rotate_pair(e, rotate_pair(e, h, k, cs, sn, rows=True), k, cs, sn, rows=False)
        new = [e.reshape(e.select(here, x, old), batch + [1, 1]) for x, old in ((na, pa), (nb, pb), (nc, pc), (nd, pd))]
        new = e.concatenate([e.concatenate(new[:2], r + 1), e.concatenate(new[2:], r + 1)], r)
        h = e.dynamic_update_slice(h, new, [zero_i] * r + [k, k])
        return [k + 1, h, rotate_pair(e, z, k, cs, sn, rows=False)]

    if n >= 2:
        _, h, z = e.while_([zero_i, h, z], lambda k, *_: e.compare("LT", k, e.scalar(n - 1, "i32"), "SIGNED"),
                               standardise)
    h = e.select(e.compare("GT", rows, cols + 1, "SIGNED"), splat(e, 0, t, shape), h)
    wr = diagonal_of(e, h)
    if n < 2:
        return h, z, wr, splat(e, 0, t, vec), info
    # A standardised block's two diagonal entries are one value (?lanv2 stores it twice); XLA may compute the
    # two copies in separate fusions with different contractions, so the second is copied from the first
    # (exact data movement: a select and a reduce over zeros).
    second = e.compare("NE", subdiagonal_of(e, h), splat(e, 0, t, vec), "FLOAT")
    wr = e.select(second, shift_down(e, wr), wr)
    h = e.select(e.compare("EQ", rows, cols, "SIGNED"), e.broadcast_in_dim(wr, shape, bd + [r]), h)
    sub = slice_dim(e, subdiagonal_of(e, h), r, 1, n)  # h[i+1, i], i < n - 1
    sup = slice_dim(e, superdiagonal_of(e, h), r, 0, n - 1)  # h[i, i+1], i < n - 1
    pair = e.select(e.compare("NE", sub, splat(e, 0, t, sub.shape), "FLOAT"),
                    e.sqrt(e.abs(sup)) * e.sqrt(e.abs(sub)), splat(e, 0, t, sub.shape))
    none = splat(e, 0, t, batch + [1])
    wi = e.concatenate([pair, none], r) - e.concatenate([none, pair], r)
    return h, z, wr, wi, info


def build_gees_real(e: Emitter, a: V, vectors: bool) -> list[V]:
    """``sgees`` / ``dgees`` of a real ``a`` (``[*b, n, n]``, no sorting): ``[t, vs, wr, wi, sdim, info]``: the
    real Schur form of :func:`real_schur` (``vs`` zeros when not ``vectors``), ``sdim`` 0; ``A`` permuted
    first and the Schur vectors' rows swapped back, as :func:`build_gees`."""
    b, *balance = gebal(e, a, scale=False)
    t, z, wr, wi, info = real_schur(e, b)
    z = gebak(e, z, *balance, left=False) if vectors else splat(e, 0, a.t, a.shape)
    return [t, z, wr, wi, splat(e, 0, "i32", a.shape[:-2]), info]
