"""f32 kernels of the real ``chlo`` hyperbolic and inverse trigonometric functions (``sinh``, ``cosh``,
``tan``, ``asin``, ``acos``, ``atan``, ``asinh``, ``acosh``, ``atanh``) and ``chlo.bessel_i1e``, written on
:class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, x) -> value``: ``x`` an f32 value of any shape, the result
f32, computed in f32 arithmetic only (no f64 anywhere; f16 / bf16 operands arrive converted to f32). The
elementwise builders (:mod:`hlokit.passes.chlo.elementwise`) use them unless ``precision=wide``. The
kernels are also module functions with stable signatures (``sinh32(e, x)``, ``cosh32(e, x)``,
``exp_half32(e, ax)``, ``exp_parts32(e, ax)``, ``log32(e, u)``, ``log1p32(e, x)``, ...) for the
complex<f32> kernels. NaN, +-inf and signed zeros follow the f64 kernels of :mod:`hlokit.passes.chlo.real`.

Accuracy: max error in f32 ULPs against a float64 reference on XLA CPU (jaxlib 0.10.2): ~1M points per
op over the whole f32 range (tests/pytest/test_chlo_native_trig.py) and every f32 (or every k-th, 12M-34M
values per op) in each op's hardest ranges (near 1 and the branch points, the seams between pieces,
near overflow). f16 / bf16 (every value of the type, through f32): <= 0.500 ULP.

========== ====== ===============================================================================
op         max    algorithm
========== ====== ===============================================================================
sinh       0.61   Taylor series below 0.5; above, 2^(k-1) ((h + l) - 2^-2k / (h + l)) with e^|x| =
                  2^k (h + l) in double-f32 (:func:`exp_parts32`: Cody-Waite reduction, Taylor series,
                  TwoSum), overflow only past the true overflow (x ~ 89.4)
cosh       0.61   the same with +
tan        1.39   below 25: Cody-Waite reduction by pi/2 in double-f32, r + r z P(z), -1 / tan r with its
                  remainder for odd multiples; above: StableHLO ``tan`` (XLA CPU's: 1.41)
asin       0.61   x + x^3 P(x^2) below 0.5; pi/2 - 2 asin(sqrt((1 - |x|) / 2)) above, the square root
                  split hi + lo, pi/2 as hi + lo (the reduction of Cephes ``asinf.c`` / fdlibm)
acos       0.60   pi/2 - asin(x) below 0.5 (TwoSum), 2 asin(sqrt((1 - x) / 2)) above, pi - ... below -0.5
atan       0.85   x + x^3 P(x^2 - 1/2) on [-1, 1]; pi/2 - atan(1/|x|) above, the reciprocal's rounding
                  error added back (Dekker product), pi/2 - r_hi exact, r z P(z) with r z exact
asinh      0.79   x + x^3 P(x^2) below 0.5; log(|x| + sqrt(x^2 + 1)) with the argument in double-f32
                  (Dekker square, TwoSum) and log(h + l) = log(h) + l / h below 2^12; log(2|x|) above
acosh      0.71   sqrt(2y) Q(y), y = x - 1, below 2; log(x + sqrt(x^2 - 1)) as for asinh below 2^12;
                  log(2x) above
atanh      0.70   x + x^3 P(x^2) below 0.5; 0.5 log1p(2|x| / (1 - |x|)) above with the quotient's
                  remainder passed to :func:`log1p32`
bessel_i1e 0.85   |x| f(|x|) below 8, f = e^-x I1(x) / x in eight pieces (c0 as hi + lo, c0 + t q(t)
                  by TwoSum, the product exact); (C + u G(u)) / sqrt(|x|), u = 1 / |x|, above, the
                  division and square root with their remainders (the split at 8 as in Cephes ``i1f.c``)
========== ====== ===============================================================================

The logarithms are our own (:func:`log32`, :func:`log1p32`, <= 0.82 ULP: bit-level reduction to
[sqrt(1/2), sqrt(2)) and the decomposition of fdlibm's ``e_log.c``), since XLA CPU's f32 ``log`` is
off by 1.2 ULP, ``log_plus_one`` by 2.4 and ``exponential_minus_one`` by 5.4 (measured); its
``exponential`` is off by 1 ULP and by 3.8 just below its overflow, its ``tan`` by 1.4 next to the
poles, its ``atan2`` with a constant 1 by up to 5.3 ULP for some array sizes. Polynomials P, Q, T, G,
f: least-squares fits on 400 Chebyshev nodes against mpmath at 40 digits, weighted by the term's share
of the result (the f64 fit's error below 2^-30 of the result); for atan and bessel_i1e the coefficients
were rounded to f32 one at a time from the lowest degree, each later one refitted to the residual, so
that the rounding of the leading ones is compensated (bessel_i1e's constant terms kept as f32 hi + lo).
Exact-arithmetic steps (TwoSum, Dekker's 12-bit splits by bit masks) stay exact under FMA contraction;
constants that must not be folded into others go in through :meth:`Emitter.opaque`.
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import Emitter, V

__all__ = [
    "KERNELS", "sinh32", "cosh32", "tan32", "asin32", "acos32", "atan32", "asinh32", "acosh32", "atanh32",
    "i1e32", "log32", "log1p32", "exp_half32", "exp_parts32",
]

LN2 = 0.6931471805599453
# ln 2 = _LN2_HI + _LN2_LO, _LN2_HI with 16 significant bits (k * _LN2_HI exact for |k| < 256)
_LN2_HI = 0.693145751953125
_LN2_LO = LN2 - _LN2_HI
# exp(r) = 1 + r + r^2 (1/2 + r/6 + ...), |r| <= ln2 / 2 (Taylor to r^10)
_EXP_TAYLOR = [1.0 / math.factorial(k) for k in range(10, 1, -1)]
_EXP_CLAMP = 90.0  # exp(90) / 2 overflows f32; the reduction stays exact up to here


def _pow2(e: Emitter, k: V) -> V:
    """2^k for an f32 integer-valued ``k`` in [-126, 127] (bit operations)."""
    ki = e.convert(k, "i32")
    ki = ki + e.const(127, ki)
    return e.bitcast_convert(e.shift_left(ki, e.const(23, ki)), "f32")


def _scale(e: Emitter, v: V, k: V) -> V:
    """v * 2^k for an f32 integer-valued ``k`` in [-252, 254] (two exact power-of-2 factors)."""
    k1 = e.floor(0.5 * k)
    return v * _pow2(e, k1) * _pow2(e, k - k1)


def exp_parts32(e: Emitter, ax: V) -> tuple[V, V, V]:
    """(k, hi, lo) with exp(ax) = 2^k (hi + lo), hi + lo in [0.7, 1.42] to about 2^-40 relative, for
    f32 ``ax`` in [-90, 90] (clamp before): Cody-Waite reduction r = ax - k ln 2 with ln 2 split hi + lo
    (exact), the Taylor series of exp(r), 1 + r by TwoSum (Cody and Waite, "Software Manual for the
    Elementary Functions", 1980)."""
    k = e.round_nearest_even(ax * (1.0 / LN2))
    r_hi = ax - k * _LN2_HI  # exact: |k| <= 130, _LN2_HI has 16 bits
    r, r_lo = _two_sum(e, r_hi, -(k * _LN2_LO))
    tail = r * r * e.horner(r, _EXP_TAYLOR)  # exp(r) - 1 - r
    hi, lo = _two_sum(e, e.opaque(1.0, ax), r)
    hi, lo = _two_sum(e, hi, lo + (tail + r_lo * (1.0 + r)))  # renormalised: |lo| <= ulp(hi) / 2
    return k, hi, lo


def _exp_pm_half(e: Emitter, ax: V, sign: float) -> V:
    """(exp(ax) + sign exp(-ax)) / 2 for f32 ``ax >= 0`` (sign -1: sinh, for ``ax >= 0.5``; +1: cosh),
    overflow only past the true overflow: 2^(k-1) ((hi + lo) + sign 2^-2k / (hi + lo)), the reciprocal
    with its rounding error (12-bit splits), the sum by TwoSum, one final rounding."""
    xc = e.minimum(ax, _EXP_CLAMP)
    k, hi, lo = exp_parts32(e, xc)
    inv = 1.0 / hi
    hh, hl = _split12(e, hi)
    ih, il = _split12(e, inv)
    resid = (((1.0 - hh * ih) - hh * il) - hl * ih) - hl * il  # 1 - hi * inv, exactly
    inv_lo = inv * (resid - lo * inv)  # 1 / (hi + lo) = inv + inv_lo
    m = e.select(k.gt(40.0), 0.0, _pow2(e, e.minimum(-2.0 * k, 0.0)))  # 2^-2k (0: below 2^-80)
    b, b_lo = m * inv, m * inv_lo
    s, err = _two_sum(e, hi, sign * b)
    total = s + (err + (lo + sign * b_lo))
    return _scale(e, total, k - 1.0)


def exp_half32(e: Emitter, ax: V) -> V:
    """exp(ax) / 2 for f32 ``ax >= 0`` without spurious overflow (finite up to ax ~ 89.41), from
    :func:`exp_parts32`; <= 0.6 ULP. (XLA CPU's f32 ``exp`` is off by up to 3.8 ULP just below its own
    overflow at 88.72, 1 ULP elsewhere.)"""
    k, hi, lo = exp_parts32(e, e.minimum(ax, _EXP_CLAMP))
    return _scale(e, hi + lo, k - 1.0)


# sinh(x) = x + x^3 sum_k x^(2k) / (2k+3)!  (Taylor series, |x| < 0.5)
_SINH_TAYLOR = [1.0 / math.factorial(2 * k + 3) for k in range(5)]


def sinh32(e: Emitter, x: V) -> V:
    """sinh(x) on f32 values of any shape: Taylor series below |x| = 0.5, above (e^|x| - e^-|x|) / 2 with
    e^|x| in double-f32 (:func:`exp_parts32`), overflow only past the true overflow at ~89.4; odd, NaN
    kept."""
    ax = e.abs(x)
    xs = e.minimum(ax, 0.5)
    z = xs * xs
    small = xs + xs * z * e.horner(z, list(reversed(_SINH_TAYLOR)))
    big = _exp_pm_half(e, e.maximum(ax, 0.5), -1.0)
    res = e.select(ax.lt(0.5), small, big)
    return e.copysign(e.select(e.isnan(x), x, res), x)


def cosh32(e: Emitter, x: V) -> V:
    """cosh(x) on f32 values of any shape: (e^|x| + e^-|x|) / 2 with e^|x| in double-f32
    (:func:`exp_parts32`); NaN kept, +-inf -> +inf."""
    ax = e.abs(x)
    res = _exp_pm_half(e, ax, 1.0)
    return e.select(e.isnan(x), x, res)


# Polynomial coefficients (highest degree first, f32 values): least-squares fits (see the module
# docstring), the fit's weighted error below 2^-30 of the result.
# atan(x) = x + x z P(z - 1/2), z = x^2, |x| <= 1 (powers of z - 1/2: no cancellation in P at z = 1)
_ATAN = [-0.0005056828376837075, 0.0009476066334173083, -0.0018793880008161068, 0.0033667078241705894,
         -0.005453112535178661, 0.009214919991791248, -0.01616237312555313, 0.029137447476387024,
         -0.054815445095300674, 0.11081480234861374, -0.25916048884391785]
# asin(x) = x + x z P(z), |x| <= 0.5
_ASIN = [0.03461374714970589, 0.007535580545663834, 0.024596793577075005, 0.030113637447357178,
         0.04465990513563156, 0.07499948889017105, 0.1666666716337204]
# asinh(x) = x + x z P(z), |x| <= 0.5
_ASINH = [0.009146801196038723, -0.019964128732681274, 0.030008438974618912, -0.04461265727877617,
          0.07499885559082031, -0.1666666567325592]
# atanh(x) = x + x z P(z), |x| <= 0.5
_ATANH = [0.17598795890808105, 0.024471674114465714, 0.10284872353076935, 0.1096670925617218,
          0.14294905960559845, 0.19999724626541138, 0.3333333730697632]
# acosh(1 + y) = sqrt(2 y) Q(y), 0 <= y <= 1
_ACOSH1 = [-2.6434028768562712e-05, 0.0001737817219691351, -0.0006291717872954905, 0.001869039493612945,
           -0.0055732023902237415, 0.018749140202999115, -0.08333329111337662, 1.0]
# pi/2 and pi as f32 hi + lo (the lo parts go in through Emitter.opaque: XLA's simplifier folds
# c1 + (c2 + y) into (c1 + c2) + y)
_PIO2_HI = 1.5707963705062866
_PIO2_LO = math.pi / 2 - _PIO2_HI
_PI_HI = 3.1415927410125732
_PI_LO = math.pi - _PI_HI


def _odd(e: Emitter, x: V, coeffs) -> V:
    """x + x z P(z) with z = x^2 (P: coefficients highest degree first)."""
    z = x * x
    return x + x * z * e.horner(z, coeffs)


def _split12(e: Emitter, x: V) -> tuple[V, V]:
    """x = hi + lo (exactly), hi with the 12 leading significant bits of the f32 ``x`` (bit mask)."""
    bits = e.bitcast_convert(x, "ui32")
    hi = e.bitcast_convert(e.and_(bits, e.const(0xFFFFF000, bits)), "f32")
    return hi, x - hi


def _sqrt_split(e: Emitter, t: V) -> tuple[V, V]:
    """sqrt(t) as hi + lo, hi with 12 significant bits (hi^2 exact), lo = (t - hi^2) / (s + hi)
    (t >= 0, finite)."""
    s = e.sqrt(t)
    hi, _ = _split12(e, s)
    lo = (t - hi * hi) / e.maximum(s + hi, 1e-30)  # t = 0: lo = 0
    return hi, lo


def _two_sum(e: Emitter, a: V, b) -> tuple[V, V]:
    """a + b = s + err exactly (Knuth's TwoSum, any magnitudes)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _square(e: Emitter, x: V) -> tuple[V, V]:
    """x^2 = hi + lo exactly (Dekker's product through 12-bit splits; |x| < 2^60)."""
    xh, xl = _split12(e, x)
    hi = x * x
    return hi, ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl


def _mul_exact(e: Emitter, a: V, b: V) -> tuple[V, V]:
    """a * b = hi + lo exactly (Dekker's product through 12-bit splits; finite, no underflow)."""
    ah, al = _split12(e, a)
    bh, bl = _split12(e, b)
    hi = a * b
    return hi, (((ah * bh - hi) + ah * bl) + al * bh) + al * bl


def _log_x_plus_root(e: Emitter, x: V, one: float) -> V:
    """log(x + sqrt(x^2 + one)) for f32 x in [0.5, 2^12] (``one`` = 1: asinh) or [2, 2^12] (-1: acosh):
    the argument in double-f32 (hi + lo, Dekker / TwoSum), log(hi) + lo / hi by :func:`log32`'s
    reduction, so the argument's roundings do not reach the result."""
    p, pl = _square(e, x)
    w, wl = _two_sum(e, p, e.opaque(one, x))
    wl = wl + pl
    r = e.sqrt(w)
    rh, rl = _split12(e, r)
    r_lo = ((((w - rh * rh) - 2.0 * rh * rl) - rl * rl) + wl) / (2.0 * r)  # sqrt(w + wl) = r + r_lo
    t, tl = _two_sum(e, x, r)
    tl = tl + r_lo
    k, f = _log_reduce(e, t)
    return _log_finish(e, k, f, tl / t)


def atan32(e: Emitter, x: V) -> V:
    """atan(x) on f32 values: x + x^3 P(x^2 - 1/2) for |x| <= 1 (P fitted), above
    pi/2 - atan(r + r_lo) with r = 1/|x| and its rounding error r_lo = (1 - r |x|) / |x| (the product
    exact through 12-bit splits), pi/2 - r's 12 leading bits exact (fdlibm ``s_atanf.c`` reduces to 4
    pieces instead);
    odd, +-inf -> +-pi/2. (Not ``atan2(x, 1)``: XLA CPU's f32 atan2 with a constant 1 was off by up to
    5.3 ULP for some array sizes, measured.)"""
    ax = e.abs(x)
    inv = ax.gt(1.0)
    a = e.minimum(e.maximum(ax, 1.0), 2.0 ** 60)
    r = e.select(inv, 1.0 / e.maximum(ax, 1.0), ax)
    z = r * r
    # tail = r z P(z - 1/2) with r z exact and P's last step by TwoSum (P ~ -0.22 is a quarter of atan(1))
    w = z - 0.5
    p_hi, p_lo = _two_sum(e, e.opaque(_ATAN[-1], x), w * e.horner(w, _ATAN[:-1]))
    rz, rz_lo = _mul_exact(e, r, z)
    tail = rz * p_hi + (rz * p_lo + rz_lo * p_hi)
    near = r + tail
    rh, rl = _split12(e, r)
    ah, al = _split12(e, a)
    resid = (((1.0 - rh * ah) - rh * al) - rl * ah) - rl * al  # 1 - r a, r a exact
    tiny = r.lt(2.0 ** -12)  # rh = 0 there: pi/2 - rh stays exact
    rh = e.select(tiny, 0.0, rh)
    corr = e.select(tiny, 0.0, resid / a / (1.0 + z))  # r_lo / (1 + r^2): atan(r + r_lo) - atan(r)
    far = (_PIO2_HI - rh) - (tail + (((r - rh) + corr) - e.opaque(_PIO2_LO, x)))
    return e.copysign(e.select(inv, far, near), x)


def asin32(e: Emitter, x: V) -> V:
    """asin(x) on f32 values: x + x^3 P(x^2) (P fitted) for |x| < 0.5, above
    pi/2 - 2 asin(sqrt((1 - |x|) / 2)) with the square root split hi + lo; |x| > 1 -> NaN."""
    ax = e.abs(x)
    small = _odd(e, e.minimum(ax, 0.5), _ASIN)
    t = 0.5 * (1.0 - e.maximum(ax, 0.5))  # exact; < 0 (NaN below) for |x| > 1
    hi, lo = _sqrt_split(e, e.maximum(t, 0.0))
    s = hi + lo
    big = (_PIO2_HI - 2.0 * hi) + (e.opaque(_PIO2_LO, x) - 2.0 * (lo + s * t * e.horner(t, _ASIN)))
    res = e.select(ax.lt(0.5), small, big)
    res = e.select(ax.gt(1.0), math.nan, res)
    return e.copysign(res, x)


def acos32(e: Emitter, x: V) -> V:
    """acos(x) on f32 values: pi/2 - asin(x) for |x| < 0.5, 2 asin(sqrt((1 - x) / 2)) above 0.5 and
    pi - 2 asin(sqrt((1 + x) / 2)) below -0.5 (asin by the fitted odd polynomial, the square root split
    hi + lo, pi and pi/2 as hi + lo); |x| > 1 -> NaN."""
    ax = e.abs(x)
    xs = e.minimum(e.maximum(x, -0.5), 0.5)
    z = xs * xs
    m_hi, m_err = _two_sum(e, e.opaque(_PIO2_HI, x), -xs)
    mid = m_hi + (m_err + (e.opaque(_PIO2_LO, x) - xs * z * e.horner(z, _ASIN)))
    t = 0.5 * (1.0 - e.minimum(e.maximum(ax, 0.5), 1.0))  # exact
    hi, lo = _sqrt_split(e, t)
    tail = lo + (hi + lo) * t * e.horner(t, _ASIN)  # asin(s) = hi + tail
    pos = 2.0 * hi + 2.0 * tail
    neg = (_PI_HI - 2.0 * hi) + (e.opaque(_PI_LO, x) - 2.0 * tail)
    res = e.select(ax.lt(0.5), mid, e.select(x.gt(0.0), pos, neg))
    res = e.select(ax.gt(1.0), math.nan, res)
    return e.select(e.isnan(x), x, res)


# tan: pi/2 = _TAN_P1 + _TAN_P2 + _TAN_P3, the first two with 19 significant bits (k times them exact for
# |k| <= 16); tan r = r + r z P(z), z = r^2, |r| <= pi/4: P fitted (weighted least squares, Lawson steps
# toward minimax; coefficients rounded to f32 from the lowest degree, the rest refitted) to
# (tan r - r) / r^3, relative error of the model 1.4e-9
_TAN_P1 = 1.5707969665527344
_TAN_P2 = -6.397585821105167e-07
_TAN_P3 = 7.443547480486623e-13
_TAN_P = [0.004349905531853437, 0.00014401924272533506, 0.010792272165417671, 0.021298997104167938,
          0.054056745022535324, 0.13332688808441162, 0.33333349227905273]
_TAN_REDUCED = 25.0  # |x| below: k = round(2x / pi) <= 16; above: StableHLO tan


def tan32(e: Emitter, x: V) -> V:
    """tan(x) on f32 values. For |x| < 25: Cody-Waite reduction r = x - k pi/2 (k = round(2x / pi)) carried
    as hi + lo (exact products, TwoSum), tan r = r + r z P(z), and for odd k -1 / tan r with the quotient's
    remainder added back (Dekker product): <= 1.39 ULP there (every f32 checked), in f32 arithmetic on any
    platform (the reduction of Cephes ``tanf.c`` with a 3-part pi/2, an own polynomial). Beyond 25:
    StableHLO ``tan``, the platform's own (XLA CPU <= 1.41 ULP; XLA CUDA libdevice ``tanf``, <= 4 ULP by
    its documentation), so the kernel stays ~40 ops, not a Payne-Hanek reduction."""
    k = e.round_nearest_even(x * (2.0 / math.pi))
    a = x - k * _TAN_P1  # exact (Sterbenz)
    b, be = _two_sum(e, a, -(k * _TAN_P2))
    rh, rl = _two_sum(e, b, be - k * _TAN_P3)
    zh, zl = _square(e, rh)
    c, cl = _mul_exact(e, rh, zh)  # r^3 = c + cl + rh zl (the roundings of z and r z kept out)
    corr = rl + ((cl + rh * zl) * _TAN_P[-1] + c * e.horner(zh, _TAN_P))
    th = rh + corr
    tl = (rh - th) + corr  # tan r = th + tl (|corr| <= 0.28 |rh|)
    q = -1.0 / th
    ph, pl = _mul_exact(e, q, th)
    inv = q + q * (((1.0 + ph) + pl) + q * tl)  # -1 / (th + tl), the quotient's remainder added back
    half = k * 0.5
    odd = e.round_nearest_even(half).ne(half)
    res = e.select(e.abs(x).lt(_TAN_REDUCED), e.select(odd, inv, th), e.tan(x))
    return e.select(x.eq(0.0), x, res)  # (tan(-0) = -0)


# log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f), R(z) = sum_{k>=1} 2 z^k / (2k + 1)
# (Taylor; |s| <= 0.172 for 1 + f in [sqrt(1/2), sqrt(2)); the decomposition of fdlibm's e_log.c)
_LOG_R = [2.0 / (2 * k + 1) for k in range(6, 0, -1)]
_SQRT_HALF_BITS = 0x3F3504F3  # f32 sqrt(1/2)
_ONE_BITS = 0x3F800000


def _log_reduce(e: Emitter, u: V) -> tuple[V, V]:
    """(k, f) with u = 2^k (1 + f), 1 + f in [sqrt(1/2), sqrt(2)) (bit operations, f exact; k as f32)
    for positive normal f32 ``u``."""
    ib = e.bitcast_convert(u, "i32")
    ib = ib + e.const(_ONE_BITS - _SQRT_HALF_BITS, ib)
    k = e.shift_right_arithmetic(ib, e.const(23, ib)) - e.const(127, ib)
    m = e.bitcast_convert(e.and_(ib, e.const(0x7FFFFF, ib)) + e.const(_SQRT_HALF_BITS, ib), "f32")
    return e.convert(k, "f32"), m - 1.0


def _log_finish(e: Emitter, k: V, f: V, c: V | None = None) -> V:
    """k ln 2 + log(1 + f) + c, the small terms summed first (``c``: a correction below 2^-20 f)."""
    s = f / (2.0 + f)
    z = s * s
    r = z * e.horner(z, _LOG_R)
    hfsq = 0.5 * f * f
    low = k * _LN2_LO if c is None else k * _LN2_LO + c
    return k * _LN2_HI + (f - (hfsq - (s * (hfsq + r) + low)))


def _log_special(e: Emitter, u: V, res: V) -> V:
    """log's values at 0 (and flushed subnormals) -inf, +inf, negative or NaN -> NaN."""
    res = e.select(u.eq(math.inf), u, res)
    res = e.select(u.lt(1.1754943508222875e-38), -math.inf, res)
    res = e.select(u.lt(0.0), math.nan, res)
    return e.select(e.isnan(u), u, res)


def log32(e: Emitter, u: V, extra_k: int = 0) -> V:
    """log(u * 2^extra_k) on f32 values (log(2x) without overflow for ``extra_k=1``): reduction to
    [sqrt(1/2), sqrt(2)) by bit operations, log(1 + f) by the fdlibm ``e_log.c`` decomposition with the
    Taylor series of 2 atanh(s); <= 1 ULP (XLA CPU's f32 ``log``: 1.2 ULP)."""
    k, f = _log_reduce(e, e.maximum(u, 1.1754943508222875e-38))
    if extra_k:
        k = k + float(extra_k)
    return _log_special(e, u, _log_finish(e, k, f))


def log1p32(e: Emitter, x: V, x_lo: V | None = None) -> V:
    """log(1 + x + x_lo) on f32 values (``x_lo``: an optional low part, |x_lo| <= ulp(x)): u = 1 + x
    reduced as in :func:`log32`, the rounding error of the sum (Fast2Sum) and ``x_lo`` added back as
    c = (err + x_lo) / u; x = -1 -> -inf, x < -1 -> NaN, +inf -> +inf; <= 1 ULP (XLA CPU's f32
    ``log_plus_one``: 2.4 ULP, :meth:`Emitter.log1p`: 1.7 ULP)."""
    one = e.opaque(1.0, x)  # XLA folds (x + 1) - 1 into x otherwise
    u = x + one
    err = e.select(e.abs(x).lt(1.0), x - (u - one), one - (u - x))
    if x_lo is not None:
        err = err + x_lo
    uc = e.maximum(u, 1.1754943508222875e-38)
    k, f = _log_reduce(e, uc)
    res = _log_special(e, u, _log_finish(e, k, f, err / uc))
    return e.select(x.eq(0.0), x, res)  # -0 -> -0


def asinh32(e: Emitter, x: V) -> V:
    """asinh(x) on f32 values: x + x^3 P(x^2) (P fitted) below 0.5, log(|x| + sqrt(x^2 + 1)) with the
    argument in double-f32 below 2^12, log(2|x|) above (:func:`log32`); odd."""
    ax = e.abs(x)
    small = _odd(e, e.minimum(ax, 0.5), _ASINH)
    mid = _log_x_plus_root(e, e.minimum(e.maximum(ax, 0.5), 4096.0), 1.0)
    big = log32(e, ax, extra_k=1)
    res = e.select(ax.lt(0.5), small, e.select(ax.lt(4096.0), mid, big))
    return e.copysign(res, x)


def acosh32(e: Emitter, x: V) -> V:
    """acosh(x) on f32 values: sqrt(2y) Q(y) with y = x - 1 (exact; Q fitted, the square root split
    hi + lo) below 2, log(x + sqrt(x^2 - 1)) with the argument in double-f32 below 2^12, log(2x) above
    (:func:`log32`); x < 1 -> NaN."""
    y = e.minimum(e.maximum(x, 1.0), 2.0) - 1.0
    hi, lo = _sqrt_split(e, 2.0 * y)
    small = hi + (lo + (hi + lo) * (y * e.horner(y, _ACOSH1[:-1])))  # Q = 1 + y Q1(y)
    mid = _log_x_plus_root(e, e.minimum(e.maximum(x, 2.0), 4096.0), -1.0)
    big = log32(e, x, extra_k=1)
    res = e.select(x.lt(2.0), small, e.select(x.lt(4096.0), mid, big))
    res = e.select(x.lt(1.0), math.nan, res)
    return e.select(e.isnan(x), x, res)


def atanh32(e: Emitter, x: V) -> V:
    """atanh(x) on f32 values: x + x^3 P(x^2) (P fitted) below 0.5, 0.5 log1p(2|x| / (1 - |x|)) above
    (1 - |x| exact, the quotient with its remainder; :func:`log1p32`); +-1 -> +-inf, |x| > 1 -> NaN."""
    ax = e.abs(x)
    small = _odd(e, e.minimum(ax, 0.5), _ATANH)
    t = ax + ax
    d = 1.0 - ax
    q = t / d
    p, p_lo = _mul_exact(e, q, d)
    q_lo = e.select(d.gt(0.0), ((t - p) - p_lo) / d, 0.0)  # t / d = q + q_lo
    big = 0.5 * log1p32(e, q, q_lo)
    return e.copysign(e.select(ax.lt(0.5), small, big), x)


# exp(-x) I1(x) / x on [0, 8] in eight pieces: (upper edge, centre, c0 as f32 hi + lo, coefficients of q,
# highest first): f = c0 + t q(t), t = |x| - centre
_I1E_PIECES = [
    (0.5, 0.25, 0.3924505114555359, 3.333845643993527e-09, [-0.00032333037233911455,
        -0.0005294851725921035, 0.003132662968710065, -0.01149800419807434, 0.037018053233623505,
        -0.10057199746370316, 0.22119882702827454, -0.3679859936237335]),
    (1.0, 0.75, 0.2531837224960327, 1.910407387839541e-09, [0.00029517270741052926,
        -0.00042772683082148433, 0.0013278763508424163, -0.005171125289052725, 0.01725909113883972,
        -0.04888617619872093, 0.11399263143539429, -0.20678669214248657]),
    (1.5, 1.25, 0.1731134057044983, -6.237316441115581e-09, [7.046459359116852e-05,
        -0.00016561908705625683, 0.0006030290387570858, -0.0023875294718891382, 0.0082509471103549,
        -0.024528473615646362, 0.061160940676927567, -0.12222591787576675]),
    (2.0, 1.75, 0.12467411905527115, -2.111311792063475e-09, [7.147321593947709e-05,
        -9.511556709185243e-05, 0.00027059868443757296, -0.001123802037909627, 0.004056858830153942,
        -0.012741925194859505, 0.03424672409892082, -0.07598244398832321]),
    (3.0, 2.5, 0.0826338604092598, -5.965561378218354e-10, [2.4897431103454437e-06,
        3.6705478123622015e-06, -2.0788680558325723e-05, 8.930001058615744e-05,
        -0.00038294593105092645, 0.001482169609516859, -0.005116483196616173, 0.015575477853417397,
        -0.04072237014770508]),
    (4.0, 3.5, 0.0535428486764431, 1.781609748618962e-09, [1.1549408327482524e-06, 7.45694649140205e-07,
        -4.989236003893893e-06, 2.1409332475741394e-05, -0.00010040978668257594,
        0.0004357909201644361, -0.0017356810858473182, 0.006311529316008091, -0.02048092521727085]),
    (6.0, 5.0, 0.03279445320367813, 1.852874520480441e-10, [1.5669701647347267e-10,
        -9.953843971288734e-09, 9.0634181049154e-08, -5.39598033810762e-07, 3.0903513561497675e-06,
        -1.712717676127795e-05, 9.021758887683973e-05, -0.00045115131069906056, 0.002126957755535841,
        -0.009204071946442127]),
    (8.0, 7.0, 0.02032703347504139, 5.4903255553018226e-11, [-1.1258606269493043e-09,
        2.203841997783229e-09, 9.659020250296635e-09, -5.675365599699944e-08, 3.5220693916926393e-07,
        -2.4828998448356288e-06, 1.6989379219012335e-05, -0.00011228943185415119,
        0.0007104771211743355, -0.004172222223132849]),
]
# exp(-x) I1(x) sqrt(x) = C + u Q(u), u = 1 / x, x >= 8, C = 1 / sqrt(2 pi) as f32 hi + lo
_I1E_ASYM = [-9.430359840393066, 2.0623745918273926, -0.3767226040363312, -0.04216057062149048,
             -0.04136056825518608, -0.0467449314892292, -0.14960338175296783]
_I1E_C_HI = 0.3989422917366028
_I1E_C_LO = 1.0 / math.sqrt(2.0 * math.pi) - _I1E_C_HI


def i1e32(e: Emitter, x: V) -> V:
    """exp(-|x|) I1(x) on f32 values: |x| f(|x|) below 8 with f = exp(-x) I1(x) / x fitted in eight
    pieces (f as hi + lo, the product exact), g(1 / |x|) / sqrt(|x|) above with g = exp(-x) I1(x) sqrt(x)
    fitted, the square root and the quotient with their remainders (the split at 8 as in Cephes
    ``i1f.c``, which uses Chebyshev series there); odd, +-inf -> +-0, NaN kept."""
    ax = e.abs(x)
    lo_edge = 0.0
    small = small_lo = None
    for hi_edge, centre, c0_hi, c0_lo, coeffs in _I1E_PIECES:
        t = e.minimum(e.maximum(ax, lo_edge), hi_edge) - centre  # exact
        f, f_lo = _two_sum(e, e.opaque(c0_hi, x), t * e.horner(t, coeffs) + e.opaque(c0_lo, x))
        if small is None:
            small, small_lo = f, f_lo
        else:
            keep = ax.lt(lo_edge)
            small, small_lo = e.select(keep, small, f), e.select(keep, small_lo, f_lo)
        lo_edge = hi_edge
    xs = e.minimum(ax, 8.0)
    p, p_lo = _mul_exact(e, xs, small)
    near = p + (p_lo + xs * small_lo)
    # beyond 2^100 g = C: the same division on x 2^-100, the result scaled by 2^-50
    huge = ax.ge(2.0 ** 100)
    xl = e.select(huge, ax * 2.0 ** -100, e.minimum(e.maximum(ax, 8.0), 2.0 ** 100))
    u = e.select(huge, 0.0, 1.0 / xl)
    g_lo = e.opaque(_I1E_C_LO, x) + u * e.horner(u, _I1E_ASYM)  # g = C_HI + g_lo
    r = e.sqrt(xl)
    r2, r2_lo = _square(e, r)
    dr = ((xl - r2) - r2_lo) / (2.0 * r)  # sqrt(xl) = r + dr
    q = (_I1E_C_HI + g_lo) / r
    qr, qr_lo = _mul_exact(e, q, r)
    far = q + ((((_I1E_C_HI - qr) - qr_lo) + g_lo) - q * dr) / r  # g / (r + dr), one rounding
    far = e.select(huge, far * 2.0 ** -50, far)
    res = e.select(ax.lt(8.0), near, e.select(ax.eq(math.inf), 0.0, far))
    res = e.select(e.isnan(x), x, res)
    return e.copysign(res, x)


#: op name (without ``chlo.``) -> f32 kernel.
KERNELS: dict[str, Callable[..., V]] = {
    "sinh": sinh32, "cosh": cosh32, "tan": tan32, "asin": asin32, "acos": acos32, "atan": atan32,
    "asinh": asinh32, "acosh": acosh32, "atanh": atanh32, "bessel_i1e": i1e32,
}
