"""f32 kernels of ``chlo.lgamma``, ``chlo.digamma``, ``chlo.polygamma`` and ``chlo.zeta``, written on
:class:`hlokit.passes.builder.Emitter`.

:data:`KERNELS` maps an op name to ``fn(e, *xs) -> value``: f32 values of any shape (``polygamma``:
``(n, x)``; ``zeta``: ``(x, q)``), the result f32, computed in f32 arithmetic only (f16 / bf16 operands
arrive converted to f32). The elementwise builders (:mod:`hlokit.passes.chlo.elementwise`) use them
unless ``precision=wide``.
"""

from __future__ import annotations

from typing import Callable

from hlokit.passes.builder import V

__all__ = ["KERNELS"]

#: op name (without ``chlo.``) -> f32 kernel.
KERNELS: dict[str, Callable[..., V]] = {}
