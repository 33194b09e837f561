"""f32 kernels of ``chlo.erf``, ``chlo.erfc`` and ``chlo.erf_inv``, written on
:class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, x) -> value``: ``x`` an f32 value of any shape, the result
f32, computed in f32 arithmetic only (f16 / bf16 operands arrive converted to f32). The elementwise
builders (:mod:`hlokit.passes.chlo.elementwise`) use them unless ``precision=wide``.

Algorithms. The structure follows W. J. Cody, "Rational Chebyshev approximations for the error
function", Math. Comp. 23 (1969), and Cephes ``ndtrf.c`` / fdlibm ``s_erff.c``: a series form near 0,
``exp(-x*x) * erfcx(x)`` beyond, with the square carrying no rounding. The polynomial coefficients are
our own weighted minimax fits (Lawson's iteration against mpmath at 30 digits), rounded to f32 one at
a time from the lowest degree with the rest refitted, so their fit error is below 0.2 ULP.

* erf, ``|x| < 0.85``: ``x + x P(x^2)`` (P of degree 7, P(0) = 2/sqrt(pi) - 1: the leading term is
  exact; evaluated on 8x so that ``x P`` stays normal for tiny x); ``|x| >= 0.85``: ``1 - erfc(|x|)``
  with the sign of x. **Max 0.83 ULP**.
* erfc, ``|x| < 0.47``: ``1 - erf(x)`` (erfc >= 0.5 there: nothing cancels); ``x >= 0.47``:
  ``exp(-x*x) erfcx(x)``; ``x <= -0.47``: ``2 - erfc(-x)``. erfcx is a degree-8 polynomial in ``x - c_i``
  on six pieces of [0.47, 10.1] (the piece's coefficients selected elementwise, one Horner evaluation;
  ``x - c_i`` exact), its exact leading coefficient kept apart. The exponential: ``x = hi + lo`` with 12
  leading bits in ``hi`` (``hi*hi`` exact, ``x*x - hi*hi = lo (x + hi)`` small), ``hi*hi = k ln2 + r``
  (Cody-Waite: ln 2 in a 16-bit and a low part, ``r`` exact), so ``exp(-x*x) = 2^-k (1 + t)`` with
  ``t = exp(-s) - 1`` a polynomial in ``|s| < 0.46`` (no f32 ``exp`` op: the product
  ``c + (v + (c + v) t)`` rounds once from its exact leading term) and ``2^-k`` an exact power of two,
  applied as two normal factors so the underflow is gradual: subnormal from x ~ 9.19 (flushed to 0 by
  XLA CPU), 0 beyond 10.06. **Max 1.60 ULP**, relative all the way down to the underflow.
* erf_inv, ``|y| < 0.75``: ``t + t P(t^2)`` (t = |y|, P of degree 9, P(0) = sqrt(pi)/2 - 1);
  ``|y| >= 0.75``: M. Giles, "Approximating the erfinv function", GPU Computing Gems Jade Edition
  (2011), single-precision branches, as the first guess ``x0``, then one Newton step on
  ``erfc(x) = 1 - t`` (``1 - t`` is exact here; the step's error is the erfc kernel's relative error
  divided by ~2 x^2, so it stays accurate next to ±1). ±1 -> ±inf, ``|y| > 1`` -> NaN. **Max 1.13 ULP**.

Measured on XLA CPU (jaxlib 0.10.2) against scipy's f64 functions, exhaustively: every f32 with
1e-8 <= |x| < 4 (erf; 1 beyond), < 10.06 (erfc) and < 1 (erf_inv), both signs
(``python benchmarks/chlo_accuracy.py --exhaustive erf,erfc,erf_inv``), plus log-spaced tiny values.
``tests/pytest/test_chlo_native_erf.py`` asserts 1.0 / 1.75 / 1.25 ULP on its sweeps, and f16 / bf16
(through f32) within 1 ULP on every value of the type.
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import Emitter, V

__all__ = ["KERNELS", "erf32", "erfc32", "erf_inv32"]

_TWO_OVER_SQRT_PI = 1.1283791670955126
_INV_LN2 = 1.4426950408889634
_LN2_HI = 0.693145751953125  # ln 2 to 16 bits: k * _LN2_HI is exact for k < 2^8
_LN2_LO = 1.4286068203094172e-06  # ln 2 - _LN2_HI
_X_UNDERFLOW = 10.06  # erfc(10.06) ~ 6.2e-46, below half the least subnormal (2^-150): 0 beyond
_ERF_SPLIT = 0.85  # erf: series below, 1 - erfc above
_SMALL = 0.47  # erfc(0.47) ~ 0.506: below, 1 - erf(x) loses nothing

# erf(x) / x - 1 = P(x^2) on [0, 1] (degree 7; P(0) = 2/sqrt(pi) - 1)
_ERF_P = [0.12837917, -0.37612635, 0.11283744, -0.026863614, 0.0052166055, -0.000842618, 0.00010879484,
          -8.633625e-06]
# erfcx(x) = exp(x^2) erfc(x) = sum_i c_i (x - center)^i on six pieces of [0.47, 10.1] (degree 8):
# (upper end, center, c_0..c_8). Each center is an f32 value where erfcx(center) is within 0.001 ULP of
# an f32 value, and x - center is exact (Sterbenz) on its piece.
_ERFCX_PIECES = [
    (1.1, 0.78059477, [0.49589214, -0.35419756, 0.21940738, -0.121952385, 0.062105503, -0.02939231, 0.013063215,
                       -0.005578128, 0.0021667033]),
    (2.0, 1.5644135, [0.31135327, -0.15420863, 0.070107184, -0.02968816, 0.011831767, -0.004467866, 0.0016083637,
                      -0.0005831059, 0.00020088672]),
    (3.1, 2.5739024, [0.20544496, -0.07078862, 0.023241967, -0.0073106764, 0.0022124783, -0.00064638874,
                      0.00018249893, -5.16857e-05, 1.4702222e-05]),
    (4.8, 3.9664888, [0.13809311, -0.032889575, 0.007636976, -0.0017317729, 0.00038402175, -8.322403e-05,
                      1.7757668e-05, -3.9910574e-06, 7.888715e-07]),
    (6.6, 5.666301, [0.09808605, -0.016809028, 0.00284105, -0.0004738451, 7.802781e-05, -1.2707291e-05,
                     2.0431135e-06, -3.202392e-07, 4.6987402e-08]),
    (10.1, 8.401316, [0.066688955, -0.007829241, 0.0009130204, -0.00010578027, 1.2177285e-05, -1.3891312e-06,
                      1.5736626e-07, -1.9492095e-08, 2.2960602e-09]),
]
# exp(-s) - 1 = -s + s^2 P(s) on [-0.36, 0.47] (degree 5; P(0) = 1/2)
_EXPM1_P = [0.5, -0.16666657, 0.041666456, -0.008335568, 0.0013935931, -0.00018727104]
# erf_inv(t) / t - 1 = P(t^2) on [0, 0.5625] (degree 9; P(0) = sqrt(pi)/2 - 1)
_ERFINV_P = [-0.11377308, 0.2320153, 0.12745886, 0.08870398, 0.041341826, 0.19751023, -0.49010283, 1.1907976,
             -1.3582076, 0.77453464]
_INV_SPLIT = 0.75  # erf_inv: series below, Newton on erfc above
# Giles (2011), single precision: erfinv(y) = y * p(w), w = -log(1 - y^2)
_GILES_W_SMALL = [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941]
_GILES_W_LARGE = [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682]


def _horner_low_first(e: Emitter, x: V, coeffs: list) -> V:
    """sum_i coeffs[i] x^i; coefficients are numbers or values (lowest degree first)."""
    acc = coeffs[-1] if isinstance(coeffs[-1], V) else e.const(coeffs[-1], x)
    for c in reversed(coeffs[:-1]):
        acc = acc * x + c
    return acc


def _erf_small(e: Emitter, x: V) -> V:
    """erf(x) for |x| <= 1: x + x P(x^2) (0.6 ULP), on 8x so that x P(x^2) stays normal for tiny x."""
    x8 = x * 8.0
    return (x8 + x8 * _horner_low_first(e, x * x, _ERF_P)) * 0.125


def _exp_neg_sq(e: Emitter, x: V) -> tuple[V, V, V]:
    """(t, s1, s2) with exp(-x*x) = (1 + t) s1 s2 for 0 <= x <= 10.06: 1 + t = exp(-s) with |s| < 0.46
    (t kept apart from the 1, so a product with it rounds once), s1 and s2 exact powers of two (2^-k
    split in two normal factors); x*x = k ln2 + s is formed without rounding the square (x = hi + lo,
    hi of 12 bits)."""
    bits = e.bitcast_convert(x, "ui32")
    hi = e.bitcast_convert(e.and_(bits, e.const(0xFFFFF000, bits)), "f32")
    lo = x - hi
    d = lo * (x + hi)  # x*x - hi*hi, relative rounding 2^-24 of a term below 2^-10 x^2
    h2 = hi * hi  # exact
    k = e.round_nearest_even(h2 * _INV_LN2)
    r = h2 - k * _LN2_HI  # exact (k * _LN2_HI exact, Sterbenz)
    s = r + (d - k * _LN2_LO)
    ki = e.convert(k, "i32")
    k1 = e.shift_right_logical(ki, e.const(1, ki))

    def pow2(j: V) -> V:  # 2^-j for 0 <= j <= 126, from its bits
        return e.bitcast_convert(e.shift_left(e.const(127, j) - j, e.const(23, j)), "f32")

    t = (s * s) * _horner_low_first(e, s, _EXPM1_P) - s  # exp(-s) - 1
    return t, pow2(k1), pow2(ki - k1)


def _erfcx_parts(e: Emitter, x: V) -> tuple[V, V]:
    """(c, v) with exp(x^2) erfc(x) = c + v for 0.47 <= x <= 10.1 (relative error below 0.7 ULP): c the
    piece's exact leading coefficient, v the rest (kept apart, so the caller rounds c + ... once). The
    piece's coefficients are selected elementwise, then one Horner evaluation."""
    masks = [x.lt(upper) for upper, _, _ in _ERFCX_PIECES[:-1]]

    def pick(values: list[float]) -> V:
        acc = e.const(values[-1], x)
        for mask, value in reversed(list(zip(masks, values[:-1]))):
            acc = e.select(mask, e.const(value, x), acc)
        return acc

    v = x - pick([c for _, c, _ in _ERFCX_PIECES])
    coeffs = [pick(list(col)) for col in zip(*[cs for _, _, cs in _ERFCX_PIECES])]
    return coeffs[0], v * _horner_low_first(e, v, coeffs[1:])


def _erfc_scaled(e: Emitter, x: V) -> tuple[V, V, V, V]:
    """(y, t, s1, s2) with erfc(x) = y s1 s2 and exp(-x*x) = (1 + t) s1 s2 for 0.47 <= x <= 10.06:
    y = erfcx(x) (1 + t) rounded once from its exact leading term (:func:`_exp_neg_sq`,
    :func:`_erfcx_parts`)."""
    t, s1, s2 = _exp_neg_sq(e, x)
    c, v = _erfcx_parts(e, x)
    return c + (v + (c + v) * t), t, s1, s2


def _erfc_pos(e: Emitter, ax: V) -> V:
    """erfc(ax) for ax >= 0.47 (any larger value, inf included: 0 beyond 10.06); below FLT_MIN the
    result is subnormal (gradual underflow) or 0 where the platform flushes subnormals (XLA CPU)."""
    xc = e.minimum(ax, _X_UNDERFLOW)
    y, _, s1, s2 = _erfc_scaled(e, xc)
    y = (y * s1) * s2
    return e.select(ax.gt(_X_UNDERFLOW), 0.0, y)


def erf32(e: Emitter, x: V) -> V:
    """erf(x) on f32 values of any shape, in f32 arithmetic; max error 0.83 ULP (measured on XLA CPU).
    ±inf -> ±1, NaN -> NaN, ±0 -> ±0."""
    ax = e.abs(x)
    small = _erf_small(e, e.minimum(e.maximum(x, -_ERF_SPLIT), _ERF_SPLIT))
    big = e.copysign(1.0 - _erfc_pos(e, e.maximum(ax, _ERF_SPLIT)), x)
    return e.select(ax.lt(_ERF_SPLIT), small, e.select(e.isnan(x), x, big))


def erfc32(e: Emitter, x: V) -> V:
    """erfc(x) on f32 values of any shape, in f32 arithmetic; max error 1.60 ULP (measured on XLA CPU),
    relative down to the underflow at x ~ 9.19 (subnormal results flush to 0 on XLA CPU). +inf -> 0,
    -inf -> 2."""
    ax = e.abs(x)
    small = 1.0 - _erf_small(e, e.minimum(e.maximum(x, -_SMALL), _SMALL))
    y = _erfc_pos(e, e.maximum(ax, _SMALL))
    big = e.select(x.lt(0.0), 2.0 - y, y)
    return e.select(ax.lt(_SMALL), small, e.select(e.isnan(x), x, big))


def erf_inv32(e: Emitter, y: V) -> V:
    """erf_inv(y) on f32 values of any shape, in f32 arithmetic; max error 1.13 ULP (measured on
    XLA CPU). ±1 -> ±inf, |y| > 1 -> NaN, ±0 -> ±0."""
    t = e.abs(y)
    c = 1.0 - t  # exact for t >= 0.5
    w = -e.log(c * (1.0 + t))
    p1 = e.horner(w - 2.5, _GILES_W_SMALL)
    p2 = e.horner(e.sqrt(e.maximum(w, 5.0)) - 3.0, _GILES_W_LARGE)
    x0 = e.minimum(e.select(w.lt(5.0), p1, p2) * t, 4.0)  # t < 1 in f32: erf_inv(t) < 3.9
    # |y| < 0.75: t + t P(t^2); else one Newton step on erfc(x) = 1 - t, erfc'(x) = -2/sqrt(pi) exp(-x^2)
    t8 = t * 8.0  # keeps t P(t^2) normal for tiny t
    tl = e.minimum(t, _INV_SPLIT)
    x_low = (t8 + t8 * _horner_low_first(e, tl * tl, _ERFINV_P)) * 0.125
    xh = e.maximum(x0, _SMALL)
    ec, tm, s1, s2 = _erfc_scaled(e, xh)
    scale = s1 * s2  # xh <= 4: a normal power of two
    x_high = xh + (ec * scale - c) / ((_TWO_OVER_SQRT_PI * (1.0 + tm)) * scale)
    x = e.select(t.lt(_INV_SPLIT), x_low, x_high)
    res = e.copysign(x, y)
    res = e.select(t.eq(1.0), e.copysign(e.const(math.inf, y), y), res)
    res = e.select(t.gt(1.0), math.nan, res)
    return e.select(e.isnan(y), y, e.select(t.eq(0.0), y, res))


#: op name (without ``chlo.``) -> f32 kernel.
KERNELS: dict[str, Callable[..., V]] = {"erf": erf32, "erfc": erfc32, "erf_inv": erf_inv32}
