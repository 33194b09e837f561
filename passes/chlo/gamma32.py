"""f32 kernels of ``chlo.lgamma``, ``chlo.digamma``, ``chlo.polygamma`` and ``chlo.zeta``, written on
:class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, *xs) -> value``: f32 values of any shape (``polygamma``:
``(n, x)``; ``zeta``: ``(x, q)``), the result f32, computed in f32 arithmetic only (f16 / bf16 operands
arrive converted to f32). The elementwise builders (:mod:`hlokit.passes.chlo.elementwise`) use them
unless ``precision=wide``. Special values and NaN positions are those of the f64 kernels of
:mod:`hlokit.passes.chlo.real` (XLA's conventions).

Polynomial coefficients: least-squares fits on Chebyshev nodes to mpmath values (relative error
weights), each coefficient rounded to f32 in turn from the lowest degree up with the remaining ones
refit (the f32-rounded polynomials are within 0.5 * 2^-24 relative of the function on their interval).

Algorithms and accuracy, measured on XLA CPU against scipy / mpmath over dense sweeps (10^5 points and
more; u = 2^-24, eps = 2^-23; ``tests/pytest/test_chlo_native_gamma.py`` asserts the bounds in brackets):

* lgamma: x >= 8: Stirling's series ``(x - 1/2)(log x - 1) + (log(2 pi) - 1)/2 + 1/(12x) - ...``
  (Abramowitz & Stegun 6.1.41; ``log x - 1`` is exact, nothing overflows before lgamma does);
  [0.5, 1.5): ``(x-1) P1(x-1)`` and [1.5, 3): ``(x-2) P2(x-2)``, the zeros at 1 and 2 factored out;
  [3, 8): the recurrence down into [2, 3), the factors multiplied and one log (as Cephes ``lgamf``);
  x < 0.5 down to -16.5: no reflection but the recurrence up, ``|Gamma(x)| = 1 / |x (x+1) ... (z-1)
  z R(z)|`` with z = x + k in [-0.5, 0.5) (every shift exact in f32), ``R(z) = 1 / Gamma(1+z)``
  (entire, degree 9) and the product carried as hi + lo with Dekker's exact products (the first 10
  factors; below -10.5, |lgamma| >= 1.2 and plain products do), then one log: the error is a few u
  absolute, also at the negative zeros; x < -16: the reflection formula ``log(pi) -
  log|y sin(pi r)| - lgamma(y)``, y = -x, r = y - round(y) exact (no zeros of lgamma in f32 there).
  Measured: <= 2.2 ULP for every x > 0 (relative error also next to 1 and 2) and wherever
  |lgamma| >= 0.5 [3 ULP]; absolute error <= 0.8 eps where |lgamma| < 0.5 (the negative zeros) [1.5 eps].
  Poles (0, -1, -2, ...) and +-inf -> +inf, lgamma(1) = lgamma(2) = +0, NaN -> NaN.
* digamma: [0.5, 2.25]: ``(x - x0) S(x) / x`` with the positive zero x0 = 1.46163214... as hi + lo (an
  opaque lo, so that XLA keeps the split), S of degree 11 (``x psi(x) / (x - x0)`` is analytic on
  (-1, inf)); (2.25, 6): the recurrence down (``psi(x-1) + 1/(x-1)``, positive terms, TwoSum-compensated);
  x >= 6: the asymptotic series ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` (A&S 6.3.18); (0, 0.5):
  ``psi(1+x) - 1/x`` with psi(1+x) at the exact ``x - (x0-1)``; x < 0: reflection ``psi(1+y) + pi cot(pi
  y)``, y = -x (A&S 6.3.7), psi(1+y) without rounding 1 + y (recurrence down for y < 8), ``pi cot`` of
  the exactly reduced argument a in [0, 1/4] as ``a V(a^2)`` or ``pi^2 / (a V(a^2))``. Measured: x > 0:
  <= 2.5 ULP (relative error also at x0) [3 ULP]; x < 0: error <= 1.6 eps (|psi(1+y)| + |pi cot(pi y)|)
  [2], i.e. <= 3.3 ULP where the reflection cancels at most 4/3 [4 ULP], absolute error ~ eps next to
  the negative zeros for |x| < 8 (benchmark: 1.3 eps where |psi| < 1, 2.5 ULP above). Poles 0, -1, ...
  and -inf -> NaN, +inf -> +inf (XLA's convention, as the f64 kernel).
* zeta (Hurwitz) and polygamma: Euler-Maclaurin summation as the f64 kernel (10 terms, 8 Bernoulli
  corrections; A&S 23.1.30), each base ``q + k`` carried as hi + lo (TwoSum; ``pow`` of the hi part is
  0.5 ULP on XLA CPU, times ``1 - x lo/hi``), the terms summed with Neumaier's compensation, and where
  ``q^-x < 2^-100`` the bases scaled by an exact power of two so that no term is flushed below the
  normal range. For q < 0 (x an integer) the terms of the bases f-1-j and f+j (q = f - m) that would
  cancel are summed as one, ``(f+j)^-x (1 +- (1+d)^-x)`` with d = (1-2f)/(f+j) through log1p / expm1.
  ``polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x)`` (A&S 6.4.10), n! an f32 table up to 34!, n = 0 ->
  digamma. Measured: zeta with q > 0 <= 2.7 ULP [4]; polygamma with x > 0, 1 <= n <= 34 <= 2.7 ULP [4];
  x in (-4.9, 0): <= 3.3 ULP where the value is at least half the sum of the terms' magnitudes
  ``n! sum_k |x+k|^-(n+1)`` [4], and an error <= 4 eps times that sum next to the zeros of even orders [4].
  Below -5, q + 10 < 5 and the Euler-Maclaurin tail loses accuracy (in the f64 kernel too). n > 34 (n!
  overflows f32): ``s exp(lgamma(n+1) - (n+1) log c)`` with Stirling's lgamma: relative error up to
  ~2^-15 (a few hundred ULP).
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import Emitter, V

__all__ = ["KERNELS", "lgamma32", "digamma32", "zeta32", "polygamma32"]

# lgamma(1 + w) / w on [-0.5, 0.5] (highest degree first)
_P1 = [-0.15850330889225006, 0.17879322171211243, -0.06409715861082077, 0.06591259688138962,
       -0.11526881158351898, 0.1309613734483719, -0.14375907182693481, 0.16914638876914978,
       -0.20739856362342834, 0.2705939710140228, -0.40068519115448, 0.8224669098854065, -0.5772156715393066]
# lgamma(2 + w) / w on [-0.5, 1], in powers of (w - 0.25)
_P2 = [-2.344027961953543e-05, 4.625945439329371e-05, -7.56753797759302e-05, 0.000215177409700118,
       -0.0005957886460237205, 0.0016174815827980638, -0.004661289043724537, 0.014687970280647278,
       -0.05429553985595703, 0.2922384440898895, 0.49948686361312866]
# 1 / Gamma(1 + z) on [-0.5, 0.5]
_R = [-0.0002083582221530378, -0.0010822858894243836, 0.007209470495581627, -0.009640929289162159,
      -0.04219529405236244, 0.16654038429260254, -0.04200286418199539, -0.6558781266212463,
      0.5772156715393066, 1.0]
# x digamma(x) / (x - x0) on [0.5, 2.25], in powers of (x - 1.375)
_S = [1.3118396054778714e-05, -6.000495341140777e-05, 8.232720574596897e-05, -0.00013836305879522115,
      0.0004334620898589492, -0.00112645432818681, 0.002806285861879587, -0.007435216102749109,
      0.02125769853591919, -0.07013973593711853, 0.33220788836479187, 1.3861140012741089]
# pi tan(pi a) / a on [0, 0.25], in powers of a^2
_TANPI = [487025.59375, -20840.728515625, 12029.9833984375, 1897.7164306640625, 515.3598022460938,
          128.14756774902344, 32.46989059448242, 9.869604110717773]
# the positive zero of digamma, 1.46163214496836234126..., as hi + lo (hi an f32)
_X0 = (1.4616321325302124, 1.2438149938918909e-08)
_X0M1 = (0.4616321325302124, 1.2438149938918909e-08)  # x0 - 1
_LOG_PI = 1.1447298858494002
_PI = math.pi
_LGAMMA_LOOP = 16  # recurrence steps of lgamma below 0.5 (x >= -16.5)


def _split(e: Emitter, a: V) -> tuple[V, V]:
    """a = hi + lo exactly, hi with the 12 leading significand bits (so products of halves are exact)."""
    bits = e.bitcast_convert(a, "ui32")
    hi = e.bitcast_convert(e.and_(bits, e.const(0xFFFFF000, bits)), "f32")
    return hi, a - hi


def _mul2(e: Emitter, hi: V, lo: V, f: V) -> tuple[V, V]:
    """(hi + lo) * f as a new hi + lo: Dekker's exact product of hi and f (T. J. Dekker, "A floating-point
    technique for extending the available precision", Numer. Math. 18, 1971) plus lo * f."""
    p = hi * f
    hh, hl = _split(e, hi)
    fh, fl = _split(e, f)
    err = (((hh * fh - p) + hh * fl) + hl * fh) + hl * fl
    return p, lo * f + err


def _stirling(e: Emitter, y: V) -> V:
    """lgamma(y) for y >= 8 (Stirling's series, three correction terms)."""
    r = 1.0 / y
    r2 = r * r
    tail = r * e.horner(r2, [1.0 / 1260, -1.0 / 360, 1.0 / 12])
    # (y - 1/2) log y - y + log(2 pi)/2 = (y - 1/2)(log y - 1) + (log(2 pi) - 1)/2; log y - 1 is exact
    return (y - 0.5) * (e.log(y) - 1.0) + (tail + 0.4189385332046727)


def lgamma32(e: Emitter, x: V) -> V:
    """log|Gamma(x)| on f32 values of any shape (f32 arithmetic only); poles 0, -1, ... and +-inf -> +inf.
    Accuracy (XLA CPU): <= 2.2 ULP for x > 0 and where |lgamma| >= 0.5, <= 0.8 eps absolute elsewhere
    (next to the negative zeros); algorithm in the module docstring."""
    y = e.abs(x)
    # x >= 8, or x < -16 (reflection): Stirling at |x|
    big = _stirling(e, e.maximum(y, 8.0))
    # [1.5, 8): shift into [1.5, 3), (x-2) P2(x-2) + log(prod)
    z = e.minimum(e.maximum(x, 1.5), 8.0)
    prod = e.const(1.0, x)
    for _ in range(5):
        step = z.ge(3.0)
        z = e.select(step, z - 1.0, z)
        prod = e.select(step, prod * z, prod)
    w2 = z - 2.0
    mid = w2 * e.horner(w2 - 0.25, _P2) + e.log(prod)
    # [0.5, 1.5): (x-1) P1(x-1)
    w1 = e.minimum(e.maximum(x, 0.5), 1.5) - 1.0
    low = w1 * e.horner(w1, _P1)
    # [-16.5, 0.5): -log|z R(z) x (x+1) ... (z-1)|, z in [-0.5, 0.5); the product carried as hi + lo
    z = e.maximum(e.minimum(x, 0.5), -_LGAMMA_LOOP - 0.5)
    step = z.lt(-0.5)  # the first factor: hi + lo = z + 0 exactly
    hi = e.select(step, z, e.const(1.0, x))
    lo = e.const(0.0, x)
    z = e.select(step, z + 1.0, z)
    for i in range(1, _LGAMMA_LOOP):
        step = z.lt(-0.5)
        # exact products for the first 10 factors; beyond (x < -10.5, where |lgamma| >= 1.2) plain ones
        nhi, nlo = _mul2(e, hi, lo, z) if i < 10 else (hi * z, lo * z)
        hi = e.select(step, nhi, hi)
        lo = e.select(step, nlo, lo)
        z = e.select(step, z + 1.0, z)
    hi, lo = _mul2(e, hi, lo, z)
    hi, lo = _mul2(e, hi, lo, e.horner(z, _R))
    small = e.select(hi.eq(0.0), math.inf, -(e.log(e.abs(hi)) + lo / hi))  # poles: z = 0
    # x < -16: log(pi) - log|y sin(pi r)| - lgamma(y), y = -x, r = y - round(y) (exact)
    r = y - e.round_nearest_even(y)
    refl = (_LOG_PI - e.log(y * e.abs(e.sine(_PI * r)))) - big
    res = e.select(x.lt(0.5), e.select(x.lt(-float(_LGAMMA_LOOP)), refl, small),
                   e.select(x.lt(1.5), low, e.select(x.lt(8.0), mid, big)))
    # lgamma(1) = +0; x <= -2^23 (all integers, poles) and -inf -> +inf
    res = e.select(x.eq(1.0), 0.0, res)
    res = e.select(x.le(-8388608.0), math.inf, res)
    return e.select(e.isnan(x), x, res)


def _cot_pi(e: Emitter, y: V) -> V:
    """pi cot(pi y) for finite non-integer y: r = y - round(y) (exact), a = min(|r|, 1/2 - |r|) (exact),
    pi tan(pi a) = a V(a^2) and pi cot(pi a) = pi^2 / (a V(a^2))."""
    r = y - e.round_nearest_even(y)
    ar = e.abs(r)
    near = ar.lt(0.25)
    a = e.select(near, ar, 0.5 - ar)
    t = a * e.horner(a * a, _TANPI)
    c = e.select(near, (_PI * _PI) / t, t)
    return e.copysign(c, r)


def digamma32(e: Emitter, x: V) -> V:
    """digamma(x) on f32 values of any shape (f32 arithmetic only); poles 0, -1, ... and -inf -> NaN,
    +inf -> +inf. Accuracy (XLA CPU): <= 2.5 ULP for x > 0; x < 0: <= 1.6 eps (|psi(1-x)| + |pi cot(pi x)|)
    (the reflection's terms); algorithm in the module docstring."""
    neg = x.lt(0.0)
    y = e.abs(x)
    # |x| >= 6: asymptotic series at |x|
    yb = e.maximum(y, 6.0)
    r = 1.0 / yb
    r2 = r * r
    asym = (e.log(yb) - 0.5 * r) - r2 * e.horner(r2, [1.0 / 132, -1.0 / 240, 1.0 / 252, -1.0 / 120, 1.0 / 12])
    # the core (x - x0) S(x) / x on [0.5, 2.25] at v = z + o: x in [0.5, 6) (o = 0) shifted down
    # into (1.25, 2.25]; for x < 0.5, psi(1 + z) (o = 1) with z = |x| shifted down into (0, 1.25]
    one = e.or_(neg, x.lt(0.5))
    o = e.select(one, e.const(1.0, x), 0.0)
    small = e.select(neg, y.lt(8.0), y.lt(6.0))
    z = e.minimum(y, 8.0)
    acc = e.const(0.0, x)
    acc_lo = e.const(0.0, x)  # the sum of the reciprocals as acc + acc_lo (TwoSum)
    for _ in range(7):
        step = (z + o).gt(2.25)
        z = e.select(step, z - 1.0, z)
        nacc, err = _two_sum(e, acc, 1.0 / (z + o))
        acc = e.select(step, nacc, acc)
        acc_lo = e.select(step, acc_lo + err, acc_lo)
    v = z + o
    # opaque: XLA would fold (z - hi) - lo into z - (hi + lo) = z - hi
    d = e.select(one, (z - _X0M1[0]) - e.opaque(_X0M1[1], x), (z - _X0[0]) - e.opaque(_X0[1], x))
    psi_v = d * e.horner(v - 1.375, _S) / v
    core, err = _two_sum(e, psi_v, acc)
    core_lo = err + acc_lo
    pos = e.select(small, e.select(x.lt(0.5), (psi_v - 1.0 / x), core + core_lo), asym)
    # x < 0: psi(x) = psi(1 + y) + pi cot(pi y), psi(1 + y) = psi(y) + 1/y for y >= 6
    hi, lo = _two_sum(e, e.select(small, core, asym + 1.0 / y), _cot_pi(e, y))
    refl = hi + (lo + e.select(small, core_lo, 0.0))
    res = e.select(neg, refl, pos)
    res = e.select(e.and_(x.le(0.0), x.eq(e.floor(x))), math.nan, res)
    return e.select(x.eq(math.inf), math.inf, res)


# B_2j / (2j)!, j = 1..8
_ZETA_B = [0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
           2.08767569878681e-08, -5.284190138687493e-10, 1.3382536530684679e-11, -3.3896802963225827e-13]
_ZETA_TERMS = 10
_FACT_MAX = 34  # 34! < f32 max < 35!


def _pow_hl(e: Emitter, hi: V, lo: V, x: V, rc: V) -> V:
    """((hi + lo) rc)^-x with |lo| <= ulp(hi)/2 and rc a power of 2: pow(hi rc, -x) (0.5 ULP on XLA CPU)
    times 1 - x lo / hi."""
    return e.power(hi * rc, -x) * (1.0 - x * (lo / hi))


def _two_sum(e: Emitter, a: V, b: V) -> tuple[V, V]:
    """a + b = s + err exactly (Knuth's TwoSum, no condition on the magnitudes)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_sum_int(e: Emitter, q: V, k: float) -> tuple[V, V]:
    """q + k = s + err exactly (Knuth's TwoSum; k a small integer)."""
    s = q + k
    bb = s - q
    return s, (q - (s - bb)) + (k - bb)


def _zeta_sum(e: Emitter, x: V, q: V) -> tuple[V, V, V]:
    """(s, f, c) with zeta(x, q) = s f f: Euler-Maclaurin summation (10 terms, 8 Bernoulli corrections;
    A&S 23.1.30), each base q + k carried as hi + lo. Where q^-x < 2^-100 the bases are divided by
    c = 2^floor(log2 q) (exact) so that no term is flushed to zero below f32's normal range, and
    f = c^(-x/2) (x/2 exact; two factors so that neither underflows); otherwise c = f = 1."""
    scaled = (x * e.log(q)).gt(69.3)
    bits = e.bitcast_convert(q, "ui32")
    # at most 2^125, so that rc = 1/c (exact) stays normal; bases are scaled by multiplying with rc (XLA
    # rewrites (a/c) / (b/c) into (a c) / (c b), which can overflow)
    c = e.minimum(e.bitcast_convert(e.and_(bits, e.const(0x7F800000, bits)), "f32"), 2.0 ** 125)
    c = e.select(scaled, c, 1.0)
    rc = 1.0 / c
    n = _ZETA_TERMS
    a, a_lo = _two_sum_int(e, q, float(n))
    a_mx = _pow_hl(e, a, a_lo, x, rc)  # ((q + n) / c)^-x
    inv_a2 = 1.0 / (a * a)
    # Bernoulli corrections: B_2j/(2j)! x (x+1) ... (x+2j-2) a^(-x-2j+1), as one running term
    t = x * (a_mx / a)
    tail = e.const(0.0, x)
    for j, b in enumerate(_ZETA_B):
        tail = tail + b * t
        k = 2 * j + 1
        t = t * ((x + float(k)) * (x + float(k + 1)) * inv_a2)
    # a^(1-x) / (x-1) (1 - x exact for x >= 0.5) + a^-x / 2 + corrections; then the terms from the smallest
    # up, summed with Neumaier's compensation (TwoSum)
    first = (_pow_hl(e, a, a_lo, x - 1.0, rc) * c) / (x - 1.0)  # ((q+n)/c)^(1-x) c = (q+n)^(1-x) c^x
    s = first
    comp = tail + 0.5 * a_mx
    # q < 0 (then x is an integer): q = f - m, f in (0, 1). The terms of the negative bases f-1-j (k = m-1-j)
    # would cancel those of f+j (k = m+j): the pair is summed as (f+j)^-x (1 + (-1)^x (1 + d)^-x),
    # d = (1-2f) / (f+j), 1 - (1+d)^-x = -expm1(-x log1p(d)) (no cancellation left), for the pairs with
    # both terms among the 10.
    m = -e.floor(q)
    g = -(q + (m - 1.0))  # 1 - f, exact (q + m itself is not for |q| < 1/2)
    odd = e.round_nearest_even(x * 0.5).ne(x * 0.5)
    neg_q = q.lt(0.0)
    for k in reversed(range(n)):
        if k == 0:
            hi = q
            term = e.power(q * rc, -x)
        else:
            hi, lo = _two_sum_int(e, q, float(k))
            term = _pow_hl(e, hi, lo, x, rc)
        # pair j: the negative base k = m-1-j (dropped) and the positive one k = m+j (times the bracket), both
        # among the n terms; summed as one where |x log1p(d)| <= 3/2 (otherwise one term dominates: no
        # cancellation to speak of, and exp would amplify the log's error). Both sides compute the same lp.
        pos = hi.gt(0.0)
        j = e.select(pos, k - m, (m - 1.0) - k)
        t = (2.0 * m - 1.0) - k  # the partner's index
        d = (2.0 * g - 1.0) / ((1.0 - g) + j)
        u = d + 1.0  # log1p(d) = log(u) - ((u - 1) - d) / u, |d| < 1 here (or the pair is not used)
        lp = (e.log(u) - ((u - e.opaque(1.0, d)) - d) / u) * (-x)
        pair = e.and_(e.and_(neg_q, e.abs(lp).le(1.5)), e.and_(t.ge(0.0), t.le(float(n - 1))))
        em = e.exponential_minus_one(lp)
        bracket = e.select(odd, -em, 2.0 + em)
        term = e.select(pair, e.select(pos, term * bracket, 0.0), term)
        s, err = _two_sum(e, s, term)
        comp = comp + err
    s = e.select(e.isinf(s), s, s + comp)  # an overflowed term makes comp NaN
    return s, e.power(c, -0.5 * x), c


def _zeta_domain(e: Emitter, x: V, q: V, res: V) -> V:
    """XLA's domain rules of zeta (as the f64 kernel): x = 1 -> inf, x < 1 -> NaN, q a non-positive
    integer -> inf, q <= 0 with x not an integer -> NaN."""
    res = e.select(x.eq(1.0), math.inf, res)
    res = e.select(x.lt(1.0), math.nan, res)
    q_le0 = q.le(0.0)
    q_int = q.eq(e.floor(q))
    res = e.select(e.and_(q_le0, q_int), math.inf, res)
    return e.select(e.and_(q_le0, e.and_(e.not_(q_int), x.ne(e.floor(x)))), math.nan, res)


def zeta32(e: Emitter, x: V, q: V) -> V:
    """Hurwitz zeta(x, q) = sum_k (q+k)^-x on f32 values of any shape (f32 arithmetic only), by
    Euler-Maclaurin summation (see :func:`_zeta_sum`); XLA's domain rules."""
    s, f, _ = _zeta_sum(e, x, q)
    return _zeta_domain(e, x, q, (s * f) * f)


def polygamma32(e: Emitter, n: V, x: V) -> V:
    """polygamma(n, x) = (-1)^(n+1) n! zeta(n+1, x) (A&S 6.4.10) on f32 values (f32 arithmetic only); n = 0:
    digamma; n not a non-negative integer -> NaN; poles x = 0, -1, ...: +inf for odd n, NaN for even n
    (XLA's convention, as the f64 kernel). n! from a table of f32 values up to 34! (35! overflows f32)."""
    nn = e.maximum(n, 0.0)
    fact = e.const(math.inf, nn)
    for k in range(_FACT_MAX, 0, -1):
        fact = e.select(nn.eq(float(k)), float(math.factorial(k)), fact)
    half = nn * 0.5
    odd = e.round_nearest_even(half).ne(half)
    sign = e.select(odd, e.const(1.0, nn), -1.0)  # (-1)^(n+1)
    xs = nn + 1.0
    zs, zf, zc = _zeta_sum(e, xs, x)
    table = ((zs * zf) * fact) * zf
    # n > 34 (n! overflows f32): n! zeta = s exp(lgamma(n+1) - (n+1) log c), Stirling's lgamma
    big = zs * e.exponential(_stirling(e, xs) - xs * e.log(zc))
    res = _zeta_domain(e, xs, x, sign * e.select(nn.le(float(_FACT_MAX)), table, big))
    res = e.select(n.eq(0.0), digamma32(e, x), res)
    pole = e.and_(x.le(0.0), x.eq(e.floor(x)))
    res = e.select(e.and_(pole, odd), math.inf, e.select(pole, math.nan, res))
    bad = e.or_(e.or_(n.ne(e.floor(n)), n.lt(0.0)), n.eq(math.inf))
    return e.select(bad, math.nan, res)


#: op name (without ``chlo.``) -> f32 kernel.
KERNELS: dict[str, Callable[..., V]] = {"lgamma": lgamma32, "digamma": digamma32, "polygamma": polygamma32,
                                       "zeta": zeta32}
