"""A pass with a deliberate numerical bug, for ``hlokit-opt --check-numerics`` to find (issue 38, item 4).

``--example-expand-exponential`` rewrites ``stablehlo.exponential`` as ``2 ** (x * log2(e))``, the usual
exp2-based expansion, but with ``log2(e)`` rounded to four digits (1.443 instead of 1.4426950408889634): the
results drift by about ``2.1e-4 * |x|`` relative, hundreds of float32 ULPs, while looking right to the eye.
Load it with ``hlokit-opt --load-pass-plugin=examples/check_numerics/exp2_expansion.py`` or import it; see
``README.md`` beside it.
"""

from __future__ import annotations

from hlokit.passes.builder import Emitter, V
from hlokit.passes.registry import register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

#: log2(e) with the deliberate error: the true value is 1.4426950408889634.
LOG2_E_TRUNCATED = 1.443


@register_pass
class ExampleExpandExponential(TemplatePass):
    """``stablehlo.exponential(x)`` -> ``stablehlo.power(2, x * 1.443)`` (deliberately inexact)."""

    argument = "example-expand-exponential"
    summary = "Rewrite exponential as a power of two (example with a deliberate numerical bug)"
    illegal_ops = frozenset({"stablehlo.exponential"})
    element_types = ("f32", "f64")

    def attributes(self, op) -> tuple:
        """No attribute selects the expansion."""
        return ()

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        x = operands[0]
        return e.power(e.const(2.0, like=x), x * LOG2_E_TRUNCATED)
