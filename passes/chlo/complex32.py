"""complex<f32> kernels of the ``chlo`` hyperbolic and inverse trigonometric functions (``asin``,
``acos``, ``asinh``, ``acosh``, ``atan``, ``atanh``, ``sinh``, ``cosh``, ``tan``) and of
``chlo._asin_acos_kernel``, written on :class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, x, y) -> (re, im)``: ``x``, ``y`` the f32 real and imaginary
parts (``asin_acos_kernel``: their absolute values), computed in f32 arithmetic only. The elementwise
builders (:mod:`hlokit.passes.chlo.elementwise`) use them unless ``precision=wide``.

Algorithms (asin / acos / atan families: one implementation with the f64 kernels,
:mod:`hlokit.passes.chlo.complex`, evaluated with the f32 constants :data:`F32`):

* asin / acos / asinh / acosh / ``_asin_acos_kernel``: T. E. Hull, T. F. Fairgrieve, P. T. P. Tang,
  "Implementing the complex arcsine and arccosine functions using exception handling", ACM TOMS 23(3),
  1997, with the f32 thresholds ``sqrt(FLT_MAX)/8`` and ``sqrt(FLT_MIN)*4`` of their paper; the real part
  d of w(z) always in the cancellation-free form for |x| <= 1 (``F32.d1_max``). Measured max 3.4 ULP.
* atan / atanh: W. Kahan, "Branch cuts for complex elementary functions" (1987), the same thresholds.
  Measured max 3.1 ULP.
* sinh / cosh: ``sinh x cos y + i cosh x sin y`` (and the cosh analogue) with ``e^|x| = m 2^k`` (Cody-Waite
  reduction, ``m = exp(r)``, ``|r| <= ln2/2``): the power of two is applied after the multiplication by
  ``sin y`` / ``cos y``, so ``cosh(100) sin(1e-30)`` is finite as it is in the wide lowering; Taylor
  series of sinh below |x| = 1. Measured max 2.7 ULP.
* tan: ``(sin 2x + i sinh 2y) / (2 (cos^2 x + sinh^2 y))`` with exact squares (Dekker) and one shared
  ``e^2|y|`` for |y| >= 1 (:func:`tan_c32`). Measured max 3.6 ULP.

Measured: max ULP of each of the real and imaginary parts against numpy's complex128 functions, off the
axes, on 6 x 128k points (log-spaced 1e-17..1e17, a grid over 1e-37..1e37 and [-4, 4], near +-1, +-i and
the unit circle; XLA CPU, jaxlib 0.10.2). XLA's own complex64 lowering on the same points: asin / acos /
acosh 4.2, asinh 3.7, tan 311, sinh / cosh 1.7e7, atan / atanh inf (atanh(1 + 1e-37 i) = inf, not 42.9). Bound asserted by
tests/pytest/test_chlo_native_complex.py: 4 ULP. inf / NaN / signed zeros as the wide lowering's.
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import Emitter, V
from hlokit.passes.chlo import complex as cx
from hlokit.passes.chlo.trig32 import tan32

__all__ = ["KERNELS", "F32", "sinh_c32", "cosh_c32", "tan_c32"]

F32_MAX = 3.4028234663852886e38
F32_TINY = 1.1754943508222875e-38

_INV_LN2 = 1.4426950408889634
# ln 2 = _LN2_HI + _LN2_LO, _LN2_HI with 9 significant bits: k * _LN2_HI is exact for k < 2^15
_LN2_HI = 0.693359375
_LN2_LO = -2.1219444005469057e-04
# sinh(x) = x + x z (1/3! + z/5! + ...), z = x^2, |x| <= 2 (the next term, x^19/19!, is < 2^-38 sinh x)
_SINH_TAYLOR = [1.0 / math.factorial(n) for n in (17, 15, 13, 11, 9, 7, 5, 3)]
# e^|x| is formed as m 2^k for |x| up to this (k <= 289): beyond it every nonzero product overflows
_EXP_CLAMP = 200.0


def _pow2(e: Emitter, k: V) -> V:
    """2^k as f32 for an i32 ``k`` in [-126, 127] (the exponent field written directly)."""
    return e.bitcast_convert(e.shift_left(k + 127, e.const(23, k)), "f32")


def _exp_parts(e: Emitter, ax: V) -> tuple[V, V, V]:
    """(sh, ch, k) with sinh(ax) = sh 2^k, cosh(ax) = ch 2^k for ax >= 0 (clamped at 200; NaN stays
    NaN): ``m = exp(r)``, ``r = ax - k ln2`` (Cody-Waite), ``sh, ch = (m -+ 2^-2k / m) / 2``."""
    a = e.minimum(ax, _EXP_CLAMP)
    kf = e.round_nearest_even(a * _INV_LN2)
    r = (a - kf * _LN2_HI) - kf * _LN2_LO
    m = e.exponential(r)
    k = e.convert(kf, "i32")
    t = _pow2(e, -2 * e.minimum(k, e.const(63, k))) / m
    return 0.5 * (m - t), 0.5 * (m + t), k


def _scaled(e: Emitter, v: V, k: V, s: V | None = None) -> V:
    """v 2^k (times ``s`` when given) for k in [0, 289], exactly up to overflow: 2^k is applied in
    steps of at most 2^120, the first before the multiplication by ``s`` so no small product is
    flushed to zero."""
    k1 = e.minimum(k, e.const(120, k))
    k2 = e.minimum(k - k1, e.const(120, k))
    out = v * _pow2(e, k1)
    if s is not None:
        out = out * s
    return (out * _pow2(e, k2)) * _pow2(e, k - k1 - k2)


def _sinh_small(e: Emitter, x: V) -> V:
    """sinh(x) for |x| <= 2 (Taylor series; ~0.7 ULP below 1, ~1.4 at 2)."""
    z = x * x
    return x + x * z * e.horner(z, _SINH_TAYLOR)


def _signed(e: Emitter, v: V, x: V) -> V:
    """v with its sign flipped where x < 0 (x = -0 keeps v: the small branch carries that sign)."""
    return e.select(x.lt(0.0), -v, v)


def sinh_c32(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of sinh(x + iy) on f32 parts: sinh x cos y + i cosh x sin y, the power of two of e^|x|
    applied after the trigonometric factor (signs of zeros, inf and NaN as the f64 kernel
    :func:`hlokit.passes.chlo.complex.sinh_c`)."""
    ax = e.abs(x)
    sh, ch, k = _exp_parts(e, ax)
    c, s = e.cosine(y), e.sine(y)
    re_small = _sinh_small(e, e.minimum(e.maximum(x, -1.0), 1.0)) * c
    re_ = e.select(ax.lt(1.0), re_small, _signed(e, _scaled(e, sh, k, c), x))
    im_ = e.select(y.eq(0.0), y, _scaled(e, ch, k, s))
    return re_, im_


def cosh_c32(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of cosh(x + iy) on f32 parts: cosh x cos y + i sinh x sin y (signs of zeros, inf and NaN
    as the f64 kernel :func:`hlokit.passes.chlo.complex.cosh_c`)."""
    ax = e.abs(x)
    sh, ch, k = _exp_parts(e, ax)
    c, s = e.cosine(y), e.sine(y)
    re_ = _scaled(e, ch, k, c)
    im_small = _sinh_small(e, e.minimum(e.maximum(x, -1.0), 1.0)) * s
    im_ = e.select(ax.lt(1.0), im_small, _signed(e, _scaled(e, sh, k, s), x))
    im_ = e.select(y.eq(0.0), e.sign(x) * y, im_)
    im_ = e.select(e.and_(y.eq(0.0), e.isnan(x)), y, im_)
    return re_, im_


def _scaled_down(e: Emitter, v: V, k: V) -> V:
    """v 2^-k for k in [0, 289] (flushing to zero past the f32 range)."""
    k1 = e.minimum(k, e.const(126, k))
    k2 = e.minimum(k - k1, e.const(126, k))
    return (v * _pow2(e, -k1)) * _pow2(e, -k2)


def _square2(e: Emitter, a: V) -> tuple[V, V]:
    """a^2 = p + q exactly (Dekker's product: ``a`` split into two halves of 12 significant bits)."""
    bits = e.bitcast_convert(a, "ui32")
    hi = e.bitcast_convert(e.and_(bits, e.const(0xFFFFF000, bits)), "f32")
    lo = a - hi
    p = a * a
    return p, ((hi * hi - p) + 2.0 * (hi * lo)) + lo * lo


def _two_sum(e: Emitter, a: V, b: V) -> tuple[V, V]:
    """a + b = s + t exactly (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def tan_c32(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of tan(x + iy) on f32 parts: ``(sin 2x + i sinh 2y) / (2 (cos^2 x + sinh^2 y))``.

    The squares are exact (``cos^2 x = c2 + c2e``, ``sinh^2 y = s2 + s2e``, :func:`_square2`), so the
    denominator is rounded about once. For |y| >= 1 the hyperbolic terms share one ``e^2|y| = m 2^k``
    (:func:`_exp_parts` of 2|y|): ``2 sinh^2 y = cosh 2y - 1 = (ch - 2^-k) 2^k``, so Im = ``sh / (ch - 2^-k
    + 2^(1-k) cos^2 x)`` (the error of ``m`` cancels in the ratio; ``ch - 2^-k`` loses at most a factor
    1.4 to cancellation) and Re = ``sin 2x / (...)`` scaled by 2^-k; below |y| = 1 the Taylor series of
    sinh y and sinh 2y. No cancellation otherwise; Im = +-1 past |y| = 20."""
    ay = e.abs(y)
    cx_ = e.cosine(x)
    c2, c2e = _square2(e, cx_)
    # sin 2x; 2 sin x cos x where 2x overflows (one sine either way)
    fits = e.abs(x).lt(1e38)
    sn = e.sine(e.select(fits, 2.0 * x, x))
    s2x = e.select(fits, sn, 2.0 * (sn * cx_))
    # |y| < 1
    y1 = e.minimum(e.maximum(y, -1.0), 1.0)
    s2, s2e = _square2(e, _sinh_small(e, y1))
    den, den_e = _two_sum(e, c2, s2)
    den = den + (den_e + (c2e + s2e))
    # near the real axis (sinh^2 y < cos^2 x / 4) Re = tan x / (1 + sinh^2 y / cos^2 x): the real f32
    # kernel (<= 1.39 ULP below 25, the same on every platform) instead of the rounding of sin 2x and cos^2 x
    tn = tan32(e, x)
    re_small = e.select(s2.lt(0.25 * c2), tn / (1.0 + s2 / c2), (0.5 * s2x) / den)
    im_small = (0.5 * _sinh_small(e, 2.0 * y1)) / den
    # |y| >= 1
    sh, ch, k = _exp_parts(e, 2.0 * ay)
    p = _pow2(e, -e.minimum(k, e.const(126, k)))
    p2 = 2.0 * p
    den_k = (ch - p) + (p2 * c2 + p2 * c2e)
    im_big = e.copysign(sh / den_k, y)
    re_big = _scaled_down(e, s2x / den_k, k)
    small = ay.lt(1.0)
    re_ = e.select(small, re_small, re_big)
    im_ = e.select(small, im_small, e.select(ay.gt(20.0), e.copysign(e.const(1.0, y), y), im_big))
    re_ = e.select(y.eq(0.0), tn, re_)
    return re_, im_


#: the f32 constants of the shared kernels (Hull et al.'s sqrt(MAX)/8, sqrt(MIN)*4 for f32).
F32 = cx.Consts(math.sqrt(F32_MAX) / 8.0, math.sqrt(F32_TINY) * 4.0, -1.0)


def _with(fn: Callable[..., tuple[V, V]]) -> Callable[..., tuple[V, V]]:
    def kernel(e: Emitter, x: V, y: V) -> tuple[V, V]:
        return fn(e, x, y, F32)
    kernel.__name__ = kernel.__qualname__ = fn.__name__ + "32"
    kernel.__doc__ = f"{fn.__name__} of :mod:`hlokit.passes.chlo.complex` with the f32 constants :data:`F32`."
    return kernel


#: op name (without ``chlo.``) -> complex<f32> kernel.
KERNELS: dict[str, Callable[..., tuple[V, V]]] = {
    "asin": _with(cx.asin_c), "acos": _with(cx.acos_c), "asinh": _with(cx.asinh_c),
    "acosh": _with(cx.acosh_c), "atan": _with(cx.atan_c), "atanh": _with(cx.atanh_c),
    "tan": tan_c32, "asin_acos_kernel": _with(cx.asin_acos_kernel),
    "sinh": sinh_c32, "cosh": cosh_c32,
}
