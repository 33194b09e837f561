"""``--stablehlo-expand-cholesky``: ``stablehlo.cholesky`` -> core StableHLO (while loops, slices, masks).

Semantics: StableHLO specification, "cholesky" (https://openxla.org/stablehlo/spec#cholesky), and XLA's
operation semantics, "Cholesky" (https://openxla.org/xla/operation_semantics#cholesky): ``a`` is a batch
of Hermitian positive-definite matrices ``[*batch, n, n]``; the result holds ``L`` with ``a = L L^H``
(``lower = true``) or ``U`` with ``a = U^H U``; only that triangle of ``a`` is read. Up to order 16 the
algorithm follows XLA's own expander (openxla/xla ``xla/hlo/transforms/expanders/cholesky_expander.cc``);
beyond, blocked left-looking forms (LAPACK ``?potrf``) whose diagonal blocks are factored and inverted
by a small column loop and whose other work is matrix products: see
:func:`hlokit.passes.lapack.cholesky.build_cholesky`. What the spec leaves implementation-defined is
given as XLA gives it:

* the triangle that is not computed is zero;
* a batch element that is not positive definite (a pivot whose ``sqrt`` is NaN: negative, or a NaN in
  the input) is filled with NaN (``NaN + 0i`` for complex); the other batch elements are unaffected.
  A zero pivot (a positive semi-definite, singular input) gives inf / NaN below it without filling the
  matrix, as on XLA.

Element types: f16, bf16 (computed in f32), f32, f64, complex<f32>, complex<f64>. Static shapes only;
a dynamic or unranked operand is refused with a located error and the function is left unchanged.

Run time against XLA's native Cholesky: the table in ``docs/lapack.md``.

Driven by :class:`~hlokit.passes.template_pass.TemplatePass`: one template per (operand type,
``lower``), every op checked and built before any rewrite.
"""

from __future__ import annotations

from hlokit import attributes
from hlokit.passes.builder import Emitter, V
from hlokit.passes.lapack.cholesky import build_cholesky
from hlokit.passes.registry import register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = ["StablehloExpandCholesky"]


@register_pass
class StablehloExpandCholesky(TemplatePass):
    """Replace every ``stablehlo.cholesky`` by core StableHLO (see the module docstring)."""

    argument = "stablehlo-expand-cholesky"
    summary = "Expand stablehlo.cholesky into while loops, slices and elementwise ops"
    illegal_ops = frozenset({"stablehlo.cholesky"})

    def attributes(self, op) -> tuple:
        """``(lower,)``."""
        return (attributes.bool_value(op, "lower", False),)

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        (lower,) = info.attrs
        return build_cholesky(e, operands[0], lower=lower)
