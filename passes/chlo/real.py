"""f64 real kernels of the CHLO special functions, written on :class:`hlokit.passes.builder.Emitter`.

Each ``*64`` function takes an emitter and f64 values of any shape and returns f64 values; the
elementwise builders (:mod:`hlokit.passes.chlo.elementwise`) convert narrower types to f64 and round
once. ``e.narrow`` (set for f16/bf16/f32 sources) lets a kernel drop terms below 2^-30 relative error.

Algorithms and sources:

* erf / erfc: Cephes ``ndtr.c`` rational approximations (S. L. Moshier, Cephes Math Library);
  ``exp(-x*x)`` with a Dekker split of ``x`` so the square carries no rounding error (erfc keeps full
  relative accuracy down to its underflow at x ~ 27).
* erf_inv: M. Giles, "Approximating the erfinv function", GPU Computing Gems Jade Edition (2011), as a
  first guess, refined by Halley steps against erf / Newton steps on log(erfc).
* lgamma: Taylor series of lgamma(2+w) with (zeta(k)-1)/k coefficients on [0.5, 2.5] (accurate at the
  zeros 1 and 2), Stirling's series above 8, reflection with an exact sin(pi*r) reduction below 0.5.
* digamma: recurrence up to x >= 10, then the asymptotic series; Taylor series around the positive zero
  x0 = 1.4616...; reflection for x < 0.5.
* zeta (Hurwitz) and polygamma: Euler-Maclaurin summation (10 terms + 13 Bernoulli corrections).
* bessel_i1e: power series of I1 up to |x| = 20, Hankel's asymptotic series above.
* sinh / cosh: expm1-based for small |x|, exp(|x|/2)^2 scaling near overflow.
* next_after, mulhi: bit arithmetic (XLA operation semantics, https://openxla.org/xla/operation_semantics:
  NextAfter; CHLO ``mulhi``: the high half of the double-width product).
"""

from __future__ import annotations

import math

from hlokit.passes.builder import BITS, Emitter, V

__all__ = [
    "erf64", "erfc64", "erfinv64", "lgamma64", "digamma64", "zeta64", "polygamma64", "i1e64",
    "sinh64", "cosh64", "asin64", "acos64", "atan64", "asinh64", "acosh64", "atanh64",
    "next_after", "mulhi", "LN2", "PI", "SAFE_MAX", "SAFE_MIN",
]

F64_MAX = 1.7976931348623157e308
F64_TINY = 2.2250738585072014e-308
SAFE_MAX = math.sqrt(F64_MAX) / 8.0  # ~1.7e153: squares and sums of squares stay finite
SAFE_MIN = math.sqrt(F64_TINY) * 4.0  # ~6e-154: squares stay normal
LN2 = 0.6931471805599453
PI = 3.141592653589793

def _split_sq_exp_neg(e: Emitter, x: V) -> V:
    """exp(-x*x) with x = hi + lo (hi: 26 leading bits), so the argument carries no rounding error."""
    bits = e.bitcast_convert(x, "ui64")
    hi = e.bitcast_convert(e.and_(bits, e.const(0xFFFFFFFFF8000000, bits)), "f64")
    lo_part = (x - hi) * (x + hi)
    # XLA's simplifier rewrites exp(a) * exp(b) into exp(a + b), which would undo the split
    second = e.exponential(-lo_part)
    second = e.select(e.isnan(x), x, second)
    return e.exponential(-(hi * hi)) * second


_ERF_T = [9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3,
          7.00332514112805075473e3, 5.55923013010394962768e4]
_ERF_U = [1.0, 3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3,
          2.26290000613890934246e4, 4.92673942608635921086e4]
_ERFC_P = [2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0,
           4.86371970985681366614e1, 1.96520832956077098242e2, 5.26445194995477358631e2,
           9.34528527171957607540e2, 1.02755188689515710272e3, 5.57535335369399327526e2]
_ERFC_Q = [1.0, 1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2,
           9.75708501743205489753e2, 1.82390916687909736289e3, 2.24633760818710981792e3,
           1.65666309194161350182e3, 5.57535340817727675546e2]
_ERFC_R = [5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0,
           6.16021097993053585195e0, 7.40974269950448939160e0, 2.97886665372100240670e0]
_ERFC_S = [1.0, 2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1,
           1.70814450747565897222e1, 9.60896809063285878198e0, 3.36907645100081516050e0]


def _erf_small(e: Emitter, x: V) -> V:
    """erf(x) for |x| <= 1 (Cephes ndtr.c T/U)."""
    z = x * x
    return x * e.horner(z, _ERF_T) / e.horner(z, _ERF_U)


def _erfc_large(e: Emitter, ax: V, need_tail: bool = True) -> V:
    """erfc(ax) for ax >= 1 (Cephes P/Q below 8, R/S above); underflows to 0 past ~27.

    ``need_tail=False``: the caller only needs erfc(ax) to absolute accuracy 2^-60 (erf), R/S skipped."""
    z = _split_sq_exp_neg(e, ax)
    pq = e.horner(ax, _ERFC_P) / e.horner(ax, _ERFC_Q)
    if not need_tail:
        return e.select(ax.lt(8.0), z * pq, 0.0)
    rs = e.horner(ax, _ERFC_R) / e.horner(ax, _ERFC_S)
    y = z * e.select(ax.lt(8.0), pq, rs)
    return e.select(ax.gt(27.3), 0.0, y)


_ERF_TAYLOR = [-0.37612638903183754, 0.11283791670955126, -0.026866170645131252, 0.005223977625442188,
               -0.0008548327023450853, 0.00012055332981789664, -1.492565035840625e-05, 1.6462114365889248e-06,
               -1.6365844691234924e-07, 1.4807192815879218e-08, -1.2290555301717928e-09, 9.422759064650411e-11,
               -6.7113668551641105e-12, 4.4632242632864775e-13, -2.7835162072109215e-14, 1.6342614095367152e-15]


def _erf_taylor(e: Emitter, x: V) -> V:
    """erf(x) for |x| <= 0.5: 2/sqrt(pi) (x - x^3/3 + ...), leading coefficient split hi + lo."""
    z = x * x
    tail = e.const(_ERF_TAYLOR[-1], x)
    for c in reversed(_ERF_TAYLOR[:-1]):
        tail = tail * z + c
    return x * 1.1283791670955126 + x * (1.533545961316588e-17 + z * tail)


def erf64(e: Emitter, x: V) -> V:
    """erf(x) on f64 values of any shape: Taylor below 0.5, Cephes T/U below 1, 1 - erfc above."""
    ax = e.abs(x)
    xc = e.minimum(e.maximum(x, -1.0), 1.0)
    small = e.select(ax.lt(0.5), _erf_taylor(e, e.minimum(e.maximum(x, -0.5), 0.5)), _erf_small(e, xc))
    big = e.copysign(1.0 - _erfc_large(e, e.maximum(ax, 1.0), need_tail=False), x)
    return e.select(ax.lt(1.0), small, e.select(e.isnan(x), x, big))


def erfc64(e: Emitter, x: V) -> V:
    """erfc(x) on f64 values: 1 - erf below 1, Cephes P/Q and R/S with an exact exp(-x*x) above."""
    ax = e.abs(x)
    small = 1.0 - _erf_small(e, e.minimum(e.maximum(x, -1.0), 1.0))
    y = _erfc_large(e, e.maximum(ax, 1.0))
    big = e.select(x.lt(0.0), 2.0 - y, y)
    return e.select(ax.lt(1.0), small, e.select(e.isnan(x), x, big))


def erfinv64(e: Emitter, y: V) -> V:
    """erf_inv(y) on f64 values: Giles' first guess, Halley (|y| <= erf 1) / log-Newton steps; +-1 -> +-inf, |y| > 1 -> NaN."""
    t = e.abs(y)
    w = -e.log((1.0 - t) * (1.0 + t))
    w1 = w - 2.5
    p1 = e.horner(w1, [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                       -0.00125372503, -0.00417768164, 0.246640727, 1.50140941])
    w2 = e.sqrt(e.maximum(w, 5.0)) - 3.0
    p2 = e.horner(w2, [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                       -0.0076224613, 0.00943887047, 1.00167406, 2.83297682])
    # tail (w >= 16): erfc(x) ~ exp(-x^2) / (x sqrt(pi)), two fixed-point steps from sqrt(-log(1-t))
    tc = 1.0 - t  # exact for t >= 0.5
    lt = e.log(e.maximum(tc, 1e-300))
    x3 = None
    if not e.narrow:
        x3 = e.sqrt(-lt)
        for _ in range(2):
            x3 = e.sqrt(-(lt + e.log(1.7724538509055159 * e.maximum(x3, 1.0))))
    if e.narrow:  # f32 and narrower: w < 17 always, Giles' two branches cover it
        x = e.select(w.lt(5.0), p1, p2) * t
    else:
        x = e.select(w.lt(5.0), p1, e.select(w.lt(16.0), p2, x3)) * e.select(w.lt(16.0), t, e.const(1.0, t))
    two_over_sqrt_pi = 1.1283791670955126
    near_one = t.gt(0.8427007929497149)  # erf(1): from here on x >= 1 and erfc is accurate
    for _ in range(1 if e.narrow else 3):
        xs = e.minimum(e.maximum(x, 0.0), 6.5)
        d = two_over_sqrt_pi * _split_sq_exp_neg(e, xs)
        # |t| <= erf(1): Halley on erf(x) - t (f'' = -2 x f'), x <= 1
        xa = e.minimum(xs, 1.0)
        erf_x = e.select(xa.lt(0.5), _erf_taylor(e, e.minimum(xa, 0.5)), _erf_small(e, xa))
        ratio = (erf_x - t) / d
        x_h = xs - ratio / (1.0 + xs * ratio)
        # |t| > erf(1): Newton on log(erfc(x)) - log(1 - t) (nearly linear in x^2), x in [1, 6.5]
        ec = _erfc_large(e, e.maximum(xs, 1.0), need_tail=False)
        x_n = xs + (e.log(ec) - lt) * ec / d
        x = e.select(near_one, x_n, x_h)
    res = e.copysign(x, y)
    res = e.select(t.eq(1.0), e.copysign(e.const(math.inf, y), y), res)
    res = e.select(t.gt(1.0), math.nan, res)
    return e.select(e.isnan(y), y, e.select(t.eq(0.0), y, res))


# lgamma(2+w) = (1-gamma) w + sum_k (-1)^k (zeta(k)-1)/k w^k, k = 2..31
_LGAMMA2 = [0.3224670334241132, -0.0673523010531981, 0.020580808427784546, -0.007385551028673986,
            0.0028905103307415234, -0.001192753911703261, 0.0005096695247430425, -0.00022315475845357939,
            9.945751278180853e-05, -4.492623673813314e-05, 2.050721277567069e-05, -9.439488275268397e-06,
            4.374866789907488e-06, -2.039215753801366e-06, 9.55141213040742e-07, -4.492469198764566e-07,
            2.1207184805554665e-07, -1.0043224823968099e-07, 4.7698101693639804e-08, -2.2711094608943164e-08,
            1.0838659214896955e-08, -5.183475041970047e-09, 2.4836745438024785e-09, -1.1921401405860912e-09,
            5.731367241678862e-10, -2.7595228851242334e-10, 1.330476437424449e-10, -6.4229645638381e-11,
            3.1044247747322276e-11, -1.5021384080754142e-11]
_ONE_MINUS_EULER = 0.42278433509846713


_STIRLING = [1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360, 1.0 / 156,
             -3617.0 / 122400]


def _lgamma_series2(e: Emitter, w: V) -> V:
    """lgamma(2 + w) for |w| <= 0.5 (Taylor series with (zeta(k)-1)/k coefficients)."""
    coeffs = _LGAMMA2[:14] if e.narrow else _LGAMMA2
    acc = e.const(coeffs[-1], w)
    for c in reversed(coeffs[:-1]):
        acc = acc * w + c
    return w * (acc * w + _ONE_MINUS_EULER)


def _lgamma_pos(e: Emitter, y: V) -> V:
    """lgamma(y) for y >= 0.5.

    [0.5, 1.5): lgamma(2+w) - log1p(w), w = y-1; [1.5, 8): shift down by the recurrence
    lgamma(r) = lgamma(r-1) + log(r-1) (r-1 exact) into [1.5, 2.5] and use the series around 2;
    [8, inf): Stirling's series (8 terms).
    """
    low = y.lt(1.5)
    w_low = y - 1.0
    r = e.select(low, e.const(2.0, y), e.minimum(y, 8.0))
    prod = e.const(1.0, y)
    for _ in range(6):
        step = r.gt(2.5)
        r = e.select(step, r - 1.0, r)
        prod = e.select(step, prod * r, prod)
    mid = _lgamma_series2(e, r - 2.0) + e.log(prod)
    low_v = _lgamma_series2(e, w_low) - e.log1p(w_low)
    yb = e.maximum(y, 8.0)
    inv = 1.0 / yb
    inv2 = inv * inv
    big = ((yb - 0.5) * e.log(yb) - yb + 0.9189385332046727) + inv * e.horner(inv2, list(reversed(_STIRLING)))
    return e.select(low, low_v, e.select(y.lt(8.0), mid, big))


def lgamma64(e: Emitter, x: V) -> V:
    """log|Gamma(x)| on f64 values; poles and +-inf -> +inf, NaN -> NaN."""
    reflect = x.lt(0.5)
    y = e.select(reflect, 1.0 - x, x)
    ly = _lgamma_pos(e, e.maximum(y, 0.5))
    r = x - e.round_nearest_even(x)
    sinpi = e.abs(e.sine(PI * r))
    refl = (1.1447298858494002 - e.log(sinpi)) - ly  # log(pi) - log|sin(pi x)| - lgamma(1-x)
    res = e.select(reflect, refl, ly)
    res = e.select(e.isinf(x), math.inf, res)
    return e.select(e.isnan(x), x, res)


_DIGAMMA_X0 = (1.4616321449683622, 9.549995429965697e-17)
_DIGAMMA_ROOT = [0.9676722454476212, -0.4427631689835921, 0.258499760955651, -0.16394270544240652,
                 0.10782405069126237, -0.07219956125645471, 0.04880428816414311, -0.03316112647484736,
                 0.022597648232218104, -0.01542476590494896, 0.010538791616612175, -0.007204534386356869,
                 0.004926781395729853, -0.003369801655439328, 0.002305126326734928, -0.0015769367714301972,
                 0.0010788252019162967, -0.0007380709389960052, 0.000504953265834602,
                 -0.0003454680251063077, 0.00023635601564027053]
_DIGAMMA_ASYM = [1.0 / 12, -1.0 / 120, 1.0 / 252, -1.0 / 240, 1.0 / 132, -691.0 / 32760, 1.0 / 12,
                 -3617.0 / 8160]


def _digamma_pos(e: Emitter, y: V) -> V:
    """digamma(y) for y >= 0.5 (recurrence to y >= 10, asymptotic series; Taylor near the zero)."""
    acc = e.const(0.0, y)
    z = y
    for _ in range(10):
        small = z.lt(10.0)
        acc = e.select(small, acc + 1.0 / z, acc)
        z = e.select(small, z + 1.0, z)
    r2 = 1.0 / (z * z)
    poly = e.const(_DIGAMMA_ASYM[-1], z)
    for c in reversed(_DIGAMMA_ASYM[:-1]):
        poly = poly * r2 + c
    asym = (e.log(z) - 0.5 / z - poly * r2) - acc
    d = (y - _DIGAMMA_X0[0]) - e.opaque(_DIGAMMA_X0[1], y)
    coeffs = _DIGAMMA_ROOT[:8] if e.narrow else _DIGAMMA_ROOT
    tay = e.const(coeffs[-1], y)
    for c in reversed(coeffs[:-1]):
        tay = tay * d + c
    tay = tay * d
    return e.select(e.abs(d).lt(0.1), tay, asym)


def digamma64(e: Emitter, x: V) -> V:
    """digamma(x) on f64 values; poles 0, -1, ... and -inf -> NaN (XLA's convention), +inf -> +inf."""
    reflect = x.lt(0.5)
    y = e.select(reflect, 1.0 - x, x)
    py = _digamma_pos(e, e.maximum(y, 0.5))
    r = x - e.round_nearest_even(x)
    refl = py - PI / e.tan(PI * r)
    res = e.select(reflect, refl, py)
    # poles at 0, -1, -2, ...: NaN (as XLA); +inf -> +inf, -inf -> NaN
    res = e.select(e.and_(x.le(0.0), x.eq(e.floor(x))), math.nan, res)
    return e.select(x.eq(math.inf), math.inf, res)


_ZETA_B = [0.08333333333333333, -0.001388888888888889, 3.306878306878307e-05, -8.267195767195768e-07,
           2.08767569878681e-08, -5.284190138687493e-10, 1.3382536530684679e-11, -3.3896802963225827e-13,
           8.586062056277845e-15, -2.174868698558062e-16, 5.5090028283602295e-18, -1.3954464685812522e-19,
           3.534707039629467e-21]


def zeta64(e: Emitter, x: V, q: V) -> V:
    """Hurwitz zeta(x, q) = sum_k (q+k)^-x (Euler-Maclaurin), XLA's domain rules."""
    n = 10
    s = e.const(0.0, x)
    for k in range(n):
        s = s + e.power(q + float(k), -x)
    a = q + float(n)
    a_mx = e.power(a, -x)
    s = s + a * a_mx / (x - 1.0) + 0.5 * a_mx
    fac = x
    p = a_mx / a
    inv_a2 = 1.0 / (a * a)
    tail = e.const(0.0, x)
    for j, b in enumerate(_ZETA_B):
        tail = tail + b * fac * p
        k = 2 * j + 1
        fac = fac * (x + float(k)) * (x + float(k + 1))
        p = p * inv_a2
    s = s + tail
    res = e.select(x.eq(1.0), math.inf, s)
    res = e.select(x.lt(1.0), math.nan, res)
    q_le0 = q.le(0.0)
    q_int = q.eq(e.floor(q))
    res = e.select(e.and_(q_le0, q_int), math.inf, res)
    res = e.select(e.and_(q_le0, e.and_(e.not_(q_int), x.ne(e.floor(x)))), math.nan, res)
    return res


def polygamma64(e: Emitter, n: V, x: V) -> V:
    """polygamma(n, x) on f64 values (n a non-negative integer, else NaN); poles: +inf for odd n, NaN otherwise."""
    nn = e.maximum(n, 0.0)
    y = e.maximum(nn + 1.0, 22.0)
    r = 1.0 / y
    r2 = r * r
    stirling = ((y - 0.5) * e.log(y) - y + 0.9189385332046727) + r * e.horner(
        r2, [-1.0 / 1680, 1.0 / 1260, -1.0 / 360, 1.0 / 12])
    fact = e.exponential(stirling)  # n! for n >= 21 (smaller n come from the table below)
    f = 1.0
    for k in range(1, 22):
        f *= k
        fact = e.select(nn.eq(float(k)), f, fact)
    sign = e.select(e.round_nearest_even(nn * 0.5).eq(nn * 0.5), e.const(-1.0, nn), 1.0)  # (-1)^(n+1)
    res = sign * fact * zeta64(e, nn + 1.0, x)
    res = e.select(n.eq(0.0), digamma64(e, x), res)
    # poles x = 0, -1, -2, ...: +inf for odd n (both one-sided limits agree, as XLA), NaN for even n
    pole = e.and_(x.le(0.0), x.eq(e.floor(x)))
    odd = e.round_nearest_even(nn * 0.5).ne(nn * 0.5)
    res = e.select(e.and_(pole, odd), math.inf, e.select(pole, math.nan, res))
    bad = e.or_(n.ne(e.floor(n)), n.lt(0.0))
    return e.select(bad, math.nan, res)


def _i1e_series_coeffs(n: int) -> list[float]:
    out = []
    for k in range(n):
        out.append(1.0 / (math.factorial(k) * math.factorial(k + 1)))
    return out


def i1e64(e: Emitter, x: V) -> V:
    """exp(-|x|) I1(x) on f64 values (odd; +-inf -> +-0)."""
    ax = e.abs(x)
    xs = e.minimum(ax, 20.0)
    y = 0.25 * xs * xs
    c = _i1e_series_coeffs(30 if e.narrow else 45)
    series = 0.5 * xs * e.horner(y, list(reversed(c))) * e.exponential(-xs)
    # Hankel: I1(x) e^-x ~ 1/sqrt(2 pi x) sum_k (-1)^k prod_{j<=k}(4 - (2j-1)^2) / (k! (8x)^k)
    xl = e.maximum(ax, 20.0)
    coeffs = []
    term = 1.0
    for k in range(0, 12 if e.narrow else 30):
        coeffs.append(term)
        term = -term * (4.0 - (2 * k + 1) ** 2) / (k + 1)
    u = 1.0 / (8.0 * xl)
    asym = e.horner(u, list(reversed(coeffs))) / e.sqrt(2.0 * PI * xl)
    res = e.select(ax.le(20.0), series, asym)
    res = e.copysign(res, x)
    return e.select(e.isnan(x), x, res)


def sinh64(e: Emitter, x: V) -> V:
    """sinh(x) on f64 values without spurious overflow below the true overflow."""
    ax = e.abs(x)
    em = e.exponential_minus_one(e.minimum(ax, 700.0))
    mid = 0.5 * (em + em / (em + 1.0))
    h = e.exponential(0.5 * ax)
    big = (0.5 * h) * h
    res = e.select(ax.lt(700.0), mid, big)
    return e.copysign(res, x)


def cosh64(e: Emitter, x: V) -> V:
    """cosh(x) on f64 values without spurious overflow below the true overflow."""
    ax = e.abs(x)
    ex = e.exponential(e.minimum(ax, 700.0))
    mid = 0.5 * ex + 0.5 / ex
    h = e.exponential(0.5 * ax)
    big = (0.5 * h) * h
    return e.select(ax.lt(700.0), mid, big)


def asin64(e: Emitter, x: V) -> V:
    """asin(x) on real f64 values (|x| > 1 -> NaN)."""
    return e.atan2(x, e.sqrt((1.0 - x) * (1.0 + x)))


def acos64(e: Emitter, x: V) -> V:
    """acos(x) on real f64 values (|x| > 1 -> NaN)."""
    return e.atan2(e.sqrt((1.0 - x) * (1.0 + x)), x)


def atan64(e: Emitter, x: V) -> V:
    """atan(x) on real f64 values."""
    return e.atan2(x, 1.0)


def asinh64(e: Emitter, x: V) -> V:
    """asinh(x) on real f64 values (log1p form; log(2|x|) beyond 1e150)."""
    ax = e.abs(x)
    big = LN2 + e.log(ax)
    axs = e.minimum(ax, 1e150)
    small = e.log1p(axs + axs * axs / (1.0 + e.sqrt(1.0 + axs * axs)))
    return e.copysign(e.select(ax.gt(1e150), big, small), x)


def acosh64(e: Emitter, x: V) -> V:
    """acosh(x) on real f64 values (x < 1 -> NaN; log1p form near 1)."""
    big = LN2 + e.log(x)
    xs = e.minimum(x, 1e150)
    y = xs - 1.0
    small = e.log1p(y + e.sqrt(y * (xs + 1.0)))
    return e.select(x.lt(1.0), math.nan, e.select(x.gt(1e150), big, small))


def atanh64(e: Emitter, x: V) -> V:
    """atanh(x) on real f64 values (|x| > 1 -> NaN, +-1 -> +-inf)."""
    ax = e.abs(x)  # 1 - |x| is exact for |x| >= 0.5
    return e.copysign(0.5 * e.log1p(2.0 * ax / (1.0 - ax)), x)


def next_after(e: Emitter, x: V, y: V) -> V:
    """The float after x in the direction of y (same float type, f16/bf16/f32/f64); NaN if either is NaN."""
    it = {16: "i16", 32: "i32", 64: "i64"}[BITS[x.t]]
    xb = e.bitcast_convert(x, it)
    one = e.const(1, xb)
    # moving away from zero <=> (x < y) == (x > 0)
    away = e.compare("EQ", x.lt(y), x.gt(0.0))
    nb = e.select(away, xb + one, xb - one)
    res = e.bitcast_convert(nb, x.t)
    tiny = e.bitcast_convert(e.const(1, xb), x.t)
    res = e.select(x.eq(0.0), e.copysign(tiny, y), res)
    res = e.select(x.eq(y), y, res)
    nan = e.or_(e.isnan(x), e.isnan(y))
    return e.select(nan, math.nan, res)


def mulhi(e: Emitter, x: V, y: V) -> V:
    """The high half of the double-width product of integers x and y (same type, 8..64 bits)."""
    t = x.t
    bits = BITS[t]
    signed = not t.startswith("ui")
    if bits <= 32:
        wide = ("i" if signed else "ui") + str(2 * bits)
        p = e.convert(x, wide) * e.convert(y, wide)
        shift = e.shift_right_arithmetic if signed else e.shift_right_logical
        sh = shift(p, e.const(bits, p))
        return e.convert(sh, t)
    # 64 bits: 32x32 partial products on unsigned halves, then signed correction
    ux = e.bitcast_convert(x, "ui64") if signed else x
    uy = e.bitcast_convert(y, "ui64") if signed else y
    m32 = e.const(0xFFFFFFFF, ux)
    s32 = e.const(32, ux)
    xl, xh = e.and_(ux, m32), e.shift_right_logical(ux, s32)
    yl, yh = e.and_(uy, m32), e.shift_right_logical(uy, s32)
    ll = xl * yl
    lh = xl * yh
    hl = xh * yl
    hh = xh * yh
    mid = e.shift_right_logical(ll, s32) + e.and_(lh, m32) + e.and_(hl, m32)
    hi = hh + e.shift_right_logical(lh, s32) + e.shift_right_logical(hl, s32) + e.shift_right_logical(
        mid, s32)
    if signed:
        zero = e.const(0, x)
        hi = hi - e.select(x.lt(zero), uy, e.const(0, uy)) - e.select(y.lt(zero), ux, e.const(0, ux))
        return e.bitcast_convert(hi, t)
    return hi
