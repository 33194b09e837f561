"""f64 complex kernels of the CHLO inverse / hyperbolic trigonometric functions.

Each kernel takes the real and imaginary parts (f64 values of any shape) and returns the (real,
imaginary) parts of the result; :mod:`hlokit.passes.chlo.elementwise` splits and joins complex values.

* asin / acos / asinh / acosh: T. E. Hull, T. F. Fairgrieve, P. T. P. Tang, "Implementing the complex
  arcsine and arccosine functions using exception handling", ACM TOMS 23(3), 1997, through the kernel
  w(z) that CHLO names ``_asin_acos_kernel``.
* atan / atanh: W. Kahan, "Branch cuts for complex elementary functions" (1987), with overflow-safe
  branches.
* sinh / cosh / tan: the textbook identities over the real kernels, arranged without cancellation.

The asin / acos / atan families take the part type's thresholds as a :class:`Consts` (default
:data:`F64`): :mod:`hlokit.passes.chlo.complex32` runs the same code on f32 parts with its f32 constants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hlokit.passes.builder import Emitter, V
from hlokit.passes.chlo.real import LN2, PI, SAFE_MAX, SAFE_MIN, cosh64, sinh64

__all__ = [
    "Consts", "F64", "hypot", "asin_acos_kernel", "atanh_complex",
    "hypot64", "asin_acos_kernel64", "atanh_complex64",
    "asin_c", "acos_c", "asinh_c", "acosh_c", "atan_c", "atanh_c", "sinh_c", "cosh_c", "tan_c",
]


@dataclass(frozen=True)
class Consts:
    """The part type's thresholds for the asin / acos / atan kernels: ``safe_max`` / ``safe_min`` bound the
    values whose squares (and sums of two squares) neither overflow nor underflow (Hull et al.'s
    ``sqrt(MAX)/8`` and ``sqrt(MIN)*4``)."""

    safe_max: float
    safe_min: float
    #: the real part d of w is sqrt((A - x)(A + x)) where x / A <= this (Hull et al.: 0.6417), elsewhere
    #: (everywhere when <= 0) the cancellation-free sqrt((A + x)/2 (y^2/(r + x + 1) + s - (x - 1))) for
    #: x <= 1: A - x may lose a factor 2.8 to cancellation, which costs f32 ~0.5 ULP at the maximum
    d1_max: float = 0.6417


#: the f64 thresholds (complex<f64>, and complex<f32> with ``precision=wide``).
F64 = Consts(SAFE_MAX, SAFE_MIN)


def hypot(e: Emitter, a: V, b: V, c: Consts = F64) -> V:
    """sqrt(a^2 + b^2) without spurious overflow / underflow (~1 ULP); parts of the type of ``c``."""
    aa, ab = e.abs(a), e.abs(b)
    mx, mn = e.maximum(aa, ab), e.minimum(aa, ab)
    r = mn / mx
    scaled = mx * e.sqrt(1.0 + r * r)
    direct = e.sqrt(aa * aa + ab * ab)  # ~1 ULP where the squares neither overflow nor underflow
    safe = e.and_(mx.lt(c.safe_max), mx.gt(c.safe_min))
    h = e.select(safe, direct, scaled)
    h = e.select(mx.eq(0.0), 0.0, h)
    return e.select(mx.eq(math.inf), math.inf, h)


def asin_acos_kernel(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """w = (d, l) for |x| = x, |y| = y such that asin(z) = (atan2(Re z, d), sign(Im z) l) (Hull et al.);
    the thresholds of the tiny / huge branches from ``c``."""
    xp1 = x + 1.0
    xm1 = x - 1.0
    r = hypot(e, xp1, y, c)
    s = hypot(e, xm1, y, c)
    a = 0.5 * (r + s)
    yy = y * y
    rpxp1 = r + xp1
    spxm1 = s + xm1
    smxm1 = s - xm1
    half_apx = 0.5 * (a + x)
    # real part denominator d
    d2 = e.sqrt(half_apx * (yy / rpxp1 + smxm1))
    d3 = y * e.sqrt(half_apx / rpxp1 + half_apx / spxm1)
    d = e.select(x.le(1.0), d2, d3)
    if c.d1_max > 0:
        d1 = e.sqrt((a - x) * (a + x))
        d = e.select((x / a).le(c.d1_max), d1, d)
    # imaginary part l
    # 2 (A - 1); its half is flushed to zero where it is subnormal (x = 1, y near the smallest normal),
    # so the square root below multiplies the unhalved value by (A + 1) / 2 (the same rounding)
    am1_2 = e.select(x.lt(1.0), yy / rpxp1 + yy / smxm1, yy / rpxp1 + spxm1)
    am1 = 0.5 * am1_2
    # Hull et al. switch to log(A + sqrt(A^2 - 1)) above A = 1.5; the am1 forms above have no
    # cancellation for any A, and log1p of them is more accurate (A itself carries the rounding of
    # two hypot's), so they are used up to the overflow-safe branch below.
    l = e.log1p(am1 + e.sqrt(am1_2 * (0.5 * (a + 1.0))))
    # y so small that y*y underflows, x < 1: l = y / sqrt((1-x)(1+x))
    tiny_y = e.and_(y.lt(c.safe_min), x.lt(1.0))
    l = e.select(tiny_y, y / e.sqrt((1.0 - x) * xp1), l)
    # huge: |z| beyond SAFE_MAX
    mx = e.maximum(x, y)
    mn = e.minimum(x, y)
    ratio = mn / mx
    l_huge = (LN2 + e.log(mx)) + 0.5 * e.log1p(ratio * ratio)
    huge = mx.ge(c.safe_max)
    l = e.select(huge, l_huge, l)
    d = e.select(huge, y, d)
    return d, l


def atanh_complex(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of atanh(x + iy) (Kahan), overflow/underflow-safe with the thresholds of ``c``."""
    ax, ay = e.abs(x), e.abs(y)
    one_m = 1.0 - ax
    re_n = 0.25 * e.log1p(4.0 * ax / (one_m * one_m + ay * ay))
    im_n = 0.5 * e.atan2(2.0 * y, (1.0 - x) * (1.0 + x) - y * y)
    mx, mn = e.maximum(ax, ay), e.minimum(ax, ay)
    t = mn / mx
    re_h = (1.0 / mx) / (1.0 + t * t)
    re_h = e.select(ax.ge(ay), re_h, re_h * t)
    re_h = e.select(mx.eq(math.inf), 0.0, re_h)
    im_h = e.copysign(e.const(PI / 2, y), y)
    huge = mx.ge(c.safe_max)
    # ax == 1 and tiny ay: 0.25*log(4/ay^2)
    re_t = 0.5 * (LN2 - e.log(ay))
    at_one = e.and_(ax.eq(1.0), ay.lt(c.safe_min))
    re_ = e.select(huge, re_h, e.select(at_one, re_t, re_n))
    im_ = e.select(huge, im_h, im_n)
    return e.copysign(re_, x), im_


def hypot64(e: Emitter, a: V, b: V) -> V:
    """:func:`hypot` on f64 values."""
    return hypot(e, a, b, F64)


def asin_acos_kernel64(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """:func:`asin_acos_kernel` on f64 values."""
    return asin_acos_kernel(e, x, y, F64)


def atanh_complex64(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """:func:`atanh_complex` on f64 values."""
    return atanh_complex(e, x, y, F64)


def asin_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of asin(x + iy) on the parts (f64 unless ``c`` says otherwise)."""
    d, l = asin_acos_kernel(e, e.abs(x), e.abs(y), c)
    return e.atan2(x, d), e.copysign(l, y)


def acos_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of acos(x + iy) on the parts (f64 unless ``c`` says otherwise)."""
    d, l = asin_acos_kernel(e, e.abs(x), e.abs(y), c)
    return e.atan2(d, x), -e.copysign(l, y)


def asinh_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of asinh(x + iy) on the parts (f64 unless ``c`` says otherwise)."""
    d, l = asin_acos_kernel(e, e.abs(y), e.abs(x), c)
    return e.copysign(l, x), e.atan2(y, d)


def acosh_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of acosh(x + iy) on the parts (f64 unless ``c`` says otherwise)."""
    d, l = asin_acos_kernel(e, e.abs(x), e.abs(y), c)
    return l, e.copysign(e.atan2(d, x), y)


def atanh_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of atanh(x + iy) on the parts (f64 unless ``c`` says otherwise)."""
    return atanh_complex(e, x, y, c)


def atan_c(e: Emitter, x: V, y: V, c: Consts = F64) -> tuple[V, V]:
    """(Re, Im) of atan(x + iy) = -i atanh(i z) on the parts (f64 unless ``c`` says otherwise)."""
    re_, im_ = atanh_complex(e, -y, x, c)
    return im_, -re_


def sinh_c(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of sinh(x + iy) on f64 parts."""
    re_ = sinh64(e, x) * e.cosine(y)
    im_ = e.select(y.eq(0.0), y, cosh64(e, x) * e.sine(y))
    return re_, im_


def cosh_c(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of cosh(x + iy) on f64 parts."""
    re_ = cosh64(e, x) * e.cosine(y)
    im_ = e.select(y.eq(0.0), e.sign(x) * y, sinh64(e, x) * e.sine(y))
    im_ = e.select(e.and_(y.eq(0.0), e.isnan(x)), y, im_)
    return re_, im_


def tan_c(e: Emitter, x: V, y: V) -> tuple[V, V]:
    """(Re, Im) of tan(x + iy) on f64 parts."""
    # tan(x+iy) = (sin x cos x + i sinh y cosh y) / (cos^2 x + sinh^2 y): no cancellation in the
    # denominator (cos 2x + cosh 2y loses digits near cos 2x = -1); tanh(y) = +-1 past |y| = 20.
    sx, cx = e.sine(x), e.cosine(x)
    sh = sinh64(e, y)
    ch = cosh64(e, y)
    den = cx * cx + sh * sh
    re_ = sx * cx / den
    im_ = e.select(e.abs(y).gt(20.0), e.copysign(e.const(1.0, y), y), sh * ch / den)
    re_ = e.select(y.eq(0.0), e.tan(x), re_)
    return re_, im_
