"""Builders of the elementwise CHLO ops: ``build_<op>(e, args, info) -> results``.

Each builder gets the template's :class:`~hlokit.passes.builder.Emitter`, the operands as
:class:`~hlokit.passes.builder.V` (shape :data:`~hlokit.passes.builder.ANY_SHAPE` in a shape-independent
template) and the :class:`~hlokit.passes.chlo.templates.OpInfo` of the op, and returns the result values. Real special
functions and inverse / hyperbolic trigonometric functions evaluate in f64 and round once
(:mod:`hlokit.passes.chlo.real`); complex ones go through complex<f64>
(:mod:`hlokit.passes.chlo.complex`). Semantics: the CHLO op definitions in jaxlib's ``chlo`` dialect
and the XLA operation semantics (https://openxla.org/xla/operation_semantics).

Precision: real special functions and inverse / hyperbolic trigonometric functions of f16, bf16 and f32
operands (and complex<f32> ones) are evaluated in f32 arithmetic by default (f16 / bf16 through f32, as
XLA does), with the kernels of :data:`NATIVE` / :data:`NATIVE_COMPLEX`; f64 operands, and every operand
when the emitter is ``wide`` (``chlo-legalize-to-stablehlo{precision=wide}``), go through the f64 kernels
of :mod:`hlokit.passes.chlo.real` / :mod:`hlokit.passes.chlo.complex` and are rounded once.
"""

from __future__ import annotations

import math
from typing import Callable

from hlokit.passes.builder import FLOAT_TYPES, MINI_FLOAT_TYPES, Emitter, V
from hlokit.passes.chlo import complex as cx
from hlokit.passes.chlo import complex32, erf32, gamma32, real, trig32

__all__ = [
    "via_f64", "real_or_complex", "NATIVE", "NATIVE_COMPLEX",
    "build_acos", "build_acosh", "build_asin", "build_asinh", "build_atan", "build_atanh", "build_cosh",
    "build_sinh", "build_tan", "build_asin_acos_kernel", "build_conj", "build_erf", "build_erfc",
    "build_erf_inv", "build_lgamma", "build_digamma", "build_polygamma", "build_zeta", "build_bessel_i1e",
    "build_is_inf", "build_is_neg_inf", "build_is_pos_inf", "build_next_after", "build_square",
    "build_mulhi",
]


#: Real f32 kernels by op name (``fn(e, *f32 values) -> f32 value``).
NATIVE: dict[str, Callable[..., V]] = {**erf32.KERNELS, **gamma32.KERNELS, **trig32.KERNELS}
#: complex<f32> kernels by op name (``fn(e, re, im) -> (re, im)`` on f32 parts).
NATIVE_COMPLEX: dict[str, Callable[..., tuple[V, V]]] = dict(complex32.KERNELS)


def _native(e: Emitter, t: str, table: dict, name: str | None):
    """The f32 kernel of op ``name`` for an operand of element type ``t``, or None when the op is
    evaluated through f64 (f64 and complex<f64> operands, a ``wide`` emitter, no f32 kernel)."""
    if name is None or e.wide or t in ("f64", "complex<f64>") or t in MINI_FLOAT_TYPES:
        return None
    return table.get(name)


def via_f64(fn: Callable[..., V], name: str | None = None):
    """Builder of a real elementwise op: the f32 kernel ``NATIVE[name]`` on the operands converted to
    f32 (f16 / bf16 / f32 operands, unless the emitter is ``wide``), otherwise kernel ``fn`` on the
    operands converted to f64; the result is rounded once to the type of the last operand."""
    def build(e: Emitter, args: list[V], info) -> list[V]:
        t = args[-1].t
        native = _native(e, t, NATIVE, name)
        if native is not None:
            return [e.convert(native(e, *[e.convert(a, "f32") for a in args]), t)]
        e.narrow = t != "f64"
        xs = [e.convert(a, "f64") for a in args]
        return [e.convert(fn(e, *xs), t)]
    return build


def real_or_complex(real_fn, complex_fn, name: str | None = None):
    """Builder of a unary op on real or complex operands: ``real_fn(e, x)`` on f64 values,
    ``complex_fn(e, x, y)`` -> (re, im) on the f64 parts of a complex operand; f16 / bf16 / f32 and
    complex<f32> operands use the f32 kernels ``NATIVE[name]`` / ``NATIVE_COMPLEX[name]`` unless the
    emitter is ``wide``."""
    def build(e: Emitter, args: list[V], info) -> list[V]:
        (z,) = args
        if z.t.startswith("complex"):
            rt = z.t[len("complex<"):-1]
            native = _native(e, z.t, NATIVE_COMPLEX, name)
            if native is not None:
                re_, im_ = native(e, e.real(z), e.imag(z))
                return [e.complex(re_, im_)]
            e.narrow = z.t != "complex<f64>"
            x = e.convert(e.real(z), "f64")
            y = e.convert(e.imag(z), "f64")
            re_, im_ = complex_fn(e, x, y)
            return [e.complex(e.convert(re_, rt), e.convert(im_, rt))]
        native = _native(e, z.t, NATIVE, name)
        if native is not None:
            return [e.convert(native(e, e.convert(z, "f32")), z.t)]
        e.narrow = z.t != "f64"
        return [e.convert(real_fn(e, e.convert(z, "f64")), z.t)]
    return build


def _tan64(e: Emitter, x: V) -> V:
    return e.tan(x)


#: ``chlo.acos``: real acos via atan2, complex by Hull et al.
build_acos = real_or_complex(real.acos64, cx.acos_c, "acos")
#: ``chlo.acosh``
build_acosh = real_or_complex(real.acosh64, cx.acosh_c, "acosh")
#: ``chlo.asin``
build_asin = real_or_complex(real.asin64, cx.asin_c, "asin")
#: ``chlo.asinh``
build_asinh = real_or_complex(real.asinh64, cx.asinh_c, "asinh")
#: ``chlo.atan``
build_atan = real_or_complex(real.atan64, cx.atan_c, "atan")
#: ``chlo.atanh``
build_atanh = real_or_complex(real.atanh64, cx.atanh_c, "atanh")
#: ``chlo.cosh``
build_cosh = real_or_complex(real.cosh64, cx.cosh_c, "cosh")
#: ``chlo.sinh``
build_sinh = real_or_complex(real.sinh64, cx.sinh_c, "sinh")
#: ``chlo.erf``
build_erf = via_f64(real.erf64, "erf")
#: ``chlo.erfc``
build_erfc = via_f64(real.erfc64, "erfc")
#: ``chlo.erf_inv``
build_erf_inv = via_f64(real.erfinv64, "erf_inv")
#: ``chlo.lgamma``
build_lgamma = via_f64(real.lgamma64, "lgamma")
#: ``chlo.digamma``
build_digamma = via_f64(real.digamma64, "digamma")
#: ``chlo.polygamma`` (operands n, x)
build_polygamma = via_f64(real.polygamma64, "polygamma")
#: ``chlo.zeta`` (operands x, q)
build_zeta = via_f64(real.zeta64, "zeta")
#: ``chlo.bessel_i1e``
build_bessel_i1e = via_f64(real.i1e64, "bessel_i1e")


#: ``chlo.tan``: real tan (StableHLO ``tan``), complex through :func:`complex.tan_c`.
build_tan = real_or_complex(_tan64, cx.tan_c, "tan")


def build_asin_acos_kernel(e: Emitter, args: list[V], info) -> list[V]:
    """``chlo._asin_acos_kernel``: w(z) of Hull et al. on |Re z|, |Im z| (complex operands only);
    complex<f32> through ``NATIVE_COMPLEX["asin_acos_kernel"]`` unless the emitter is ``wide``."""
    (z,) = args
    rt = z.t[len("complex<"):-1]
    native = _native(e, z.t, NATIVE_COMPLEX, "asin_acos_kernel")
    if native is not None:
        d, l = native(e, e.abs(e.real(z)), e.abs(e.imag(z)))
        return [e.complex(d, l)]
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
