"""complex<f32> kernels of the ``chlo`` hyperbolic and inverse trigonometric functions (``asin``,
``acos``, ``asinh``, ``acosh``, ``atan``, ``atanh``, ``sinh``, ``cosh``, ``tan``) and of
``chlo._asin_acos_kernel``, written on :class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, x, y) -> (re, im)``: ``x``, ``y`` the f32 real and imaginary
parts (``asin_acos_kernel``: their absolute values), computed in f32 arithmetic only. The elementwise
builders (:mod:`hlokit.passes.chlo.elementwise`) use them unless ``precision=wide``.
"""

from __future__ import annotations

from typing import Callable

from hlokit.passes.builder import V

__all__ = ["KERNELS"]

#: op name (without ``chlo.``) -> complex<f32> kernel.
KERNELS: dict[str, Callable[..., tuple[V, V]]] = {}
