"""f32 kernels of the real ``chlo`` hyperbolic and inverse trigonometric functions (``sinh``, ``cosh``,
``tan``, ``asin``, ``acos``, ``atan``, ``asinh``, ``acosh``, ``atanh``) and ``chlo.bessel_i1e``, written on
:class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, x) -> value``: ``x`` an f32 value of any shape, the result
f32, computed in f32 arithmetic only (f16 / bf16 operands arrive converted to f32). The elementwise
builders (:mod:`hlokit.passes.chlo.elementwise`) use them unless ``precision=wide``.
"""

from __future__ import annotations

from typing import Callable

from hlokit.passes.builder import V

__all__ = ["KERNELS"]

#: op name (without ``chlo.``) -> f32 kernel.
KERNELS: dict[str, Callable[..., V]] = {}
