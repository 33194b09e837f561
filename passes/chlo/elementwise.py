"""Builders of the elementwise CHLO ops: ``build_<op>(e, args, info) -> results``.

Each builder gets the template's :class:`~hlokit.passes.builder.Emitter`, the operands as
:class:`~hlokit.passes.builder.V` (shape :data:`~hlokit.passes.builder.ANY_SHAPE` in a shape-independent
template) and the :class:`~hlokit.passes.chlo.templates.OpInfo` of the op, and returns the result values. Real special
functions and inverse / hyperbolic trigonometric functions evaluate in f64 and round once
(:mod:`hlokit.passes.chlo.real`); complex ones go through complex<f64>
(:mod:`hlokit.passes.chlo.complex`). Semantics: the CHLO op definitions in jaxlib's ``chlo`` dialect
and the XLA operation semantics (https://openxla.org/xla/operation_semantics).
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import FLOAT_TYPES, MINI_FLOAT_TYPES, Emitter, V
from hlokit.passes.chlo import complex as cx
from hlokit.passes.chlo import real

__all__ = [
    "via_f64", "real_or_complex",
    "build_acos", "build_acosh", "build_asin", "build_asinh", "build_atan", "build_atanh", "build_cosh",
    "build_sinh", "build_tan", "build_asin_acos_kernel", "build_conj", "build_erf", "build_erfc",
    "build_erf_inv", "build_lgamma", "build_digamma", "build_polygamma", "build_zeta", "build_bessel_i1e",
    "build_is_inf", "build_is_neg_inf", "build_is_pos_inf", "build_next_after", "build_square",
    "build_mulhi",
]


def via_f64(fn: Callable[..., V]):
    """Builder of a real elementwise op: evaluate kernel ``fn`` on the operands converted to f64 and
    round once to the type of the last operand."""
    def build(e: Emitter, args: list[V], info) -> list[V]:
        t = args[-1].t
        e.narrow = t != "f64"
        xs = [e.convert(a, "f64") for a in args]
        return [e.convert(fn(e, *xs), t)]
    return build


def real_or_complex(real_fn, complex_fn):
    """Builder of a unary op on real or complex operands: ``real_fn(e, x)`` on f64 values,
    ``complex_fn(e, x, y)`` -> (re, im) on the f64 parts of a complex operand."""
    def build(e: Emitter, args: list[V], info) -> list[V]:
        (z,) = args
        e.narrow = z.t not in ("f64", "complex<f64>")
        if z.t.startswith("complex"):
            rt = z.t[len("complex<"):-1]
            x = e.convert(e.real(z), "f64")
            y = e.convert(e.imag(z), "f64")
            re_, im_ = complex_fn(e, x, y)
            return [e.complex(e.convert(re_, rt), e.convert(im_, rt))]
        return [e.convert(real_fn(e, e.convert(z, "f64")), z.t)]
    return build


#: ``chlo.acos``: real acos via atan2, complex by Hull et al.
build_acos = real_or_complex(real.acos64, cx.acos_c)
#: ``chlo.acosh``
build_acosh = real_or_complex(real.acosh64, cx.acosh_c)
#: ``chlo.asin``
build_asin = real_or_complex(real.asin64, cx.asin_c)
#: ``chlo.asinh``
build_asinh = real_or_complex(real.asinh64, cx.asinh_c)
#: ``chlo.atan``
build_atan = real_or_complex(real.atan64, cx.atan_c)
#: ``chlo.atanh``
build_atanh = real_or_complex(real.atanh64, cx.atanh_c)
#: ``chlo.cosh``
build_cosh = real_or_complex(real.cosh64, cx.cosh_c)
#: ``chlo.sinh``
build_sinh = real_or_complex(real.sinh64, cx.sinh_c)
#: ``chlo.erf``
build_erf = via_f64(real.erf64)
#: ``chlo.erfc``
build_erfc = via_f64(real.erfc64)
#: ``chlo.erf_inv``
build_erf_inv = via_f64(real.erfinv64)
#: ``chlo.lgamma``
build_lgamma = via_f64(real.lgamma64)
#: ``chlo.digamma``
build_digamma = via_f64(real.digamma64)
#: ``chlo.polygamma`` (operands n, x)
build_polygamma = via_f64(real.polygamma64)
#: ``chlo.zeta`` (operands x, q)
build_zeta = via_f64(real.zeta64)
#: ``chlo.bessel_i1e``
build_bessel_i1e = via_f64(real.i1e64)


def build_tan(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.tan``: real tan in f64 (StableHLO ``tan``), complex through :func:`complex.tan_c`."""
    (z,) = args
    if z.t.startswith("complex"):
        return real_or_complex(None, cx.tan_c)(e, args, info)
    return [e.convert(e.tan(e.convert(z, "f64")), z.t)]


def build_asin_acos_kernel(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo._asin_acos_kernel``: w(z) of Hull et al. on |Re z|, |Im z| (complex operands only)."""
    (z,) = args
    rt = z.t[len("complex<"):-1]
    x = e.convert(e.real(z), "f64")
    y = e.convert(e.imag(z), "f64")
    d, l = cx.asin_acos_kernel64(e, e.abs(x), e.abs(y))
    return [e.complex(e.convert(d, rt), e.convert(l, rt))]


def build_conj(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.conj``: ``complex(real, -imag)``; a real operand is returned as it is."""
    (z,) = args
    if not z.t.startswith("complex"):
        return [z]
    return [e.complex(e.real(z), -e.imag(z))]


def build_square(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.square``: ``x * x``; complex ``((re-im)(re+im), 2 re im)``; 4/6/8-bit floats via f64."""
    (z,) = args
    if z.t.startswith("complex"):
        x, y = e.real(z), e.imag(z)
        return [e.complex((x - y) * (x + y), (x * y) * 2.0)]
    if z.t in MINI_FLOAT_TYPES:
        w = e.convert(z, "f64")
        return [e.convert(w * w, z.t)]
    return [z * z]


def _wide(e: Emitter, x: V) -> V:
    return x if x.t in FLOAT_TYPES else e.convert(x, "f64")


def build_is_inf(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.is_inf``: ``|x| == inf`` (4/6/8-bit floats after a convert to f64)."""
    return [e.isinf(_wide(e, args[0]))]


def build_is_pos_inf(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.is_pos_inf``: ``x == +inf``."""
    return [_wide(e, args[0]).eq(math.inf)]


def build_is_neg_inf(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.is_neg_inf``: ``x == -inf``."""
    return [_wide(e, args[0]).eq(-math.inf)]


def build_next_after(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.next_after``: :func:`real.next_after` (f16, bf16, f32, f64)."""
    return [real.next_after(e, *args)]


def build_mulhi(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo.mulhi``: :func:`real.mulhi` (i8..i64, ui8..ui64)."""
    return [real.mulhi(e, *args)]
