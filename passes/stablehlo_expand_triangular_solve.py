"""``--stablehlo-expand-triangular-solve``: ``stablehlo.triangular_solve`` -> core StableHLO.

Semantics: StableHLO specification, "triangular_solve"
(https://openxla.org/stablehlo/spec#triangular_solve), and XLA's operation semantics, "TriangularSolve"
(https://openxla.org/xla/operation_semantics#triangularsolve): batched solutions ``x`` of
``op(a) x = b`` (``left_side = true``) or ``x op(a) = b``, where ``op`` is identity, transpose or adjoint
(``transpose_a`` NO_TRANSPOSE, TRANSPOSE, ADJOINT), ``a`` is read in its ``lower`` (else upper)
triangle only, and ``unit_diagonal`` takes its diagonal as ones without reading it. The algorithms are
those of XLA's expander (openxla/xla ``xla/service/triangular_solve_expander.cc``): substitution
(``SolveDirectly``) up to 32 rows, inverted diagonal blocks of 32 rows above
(``SolveByInvertingDiagonalBlocks``; the blocks inverted together by recursion on halves, no loop; the
block substitution unrolled up to 256 rows, one loop beyond); see
:func:`hlokit.passes.lapack.triangular_solve.build_triangular_solve` and the run-time table in
``docs/lapack.md``. Every combination of the four attributes
is supported.

A zero on the diagonal of ``a`` (a singular system; the spec leaves the result undefined) gives inf /
NaN in the rows that depend on it, as on XLA.

Element types: f16, bf16 (computed in f32), f32, f64, complex<f32>, complex<f64>. Static shapes only;
a dynamic or unranked operand is refused with a located error and the function is left unchanged.
Driven by :class:`~hlokit.passes.template_pass.TemplatePass`: one template per (operand types,
attributes), every op checked and built before any rewrite.
"""

from __future__ import annotations

from hlokit import attributes
from hlokit.passes.builder import Emitter, V
from hlokit.passes.lapack.triangular_solve import build_triangular_solve
from hlokit.passes.registry import register_pass
from hlokit.passes.template_pass import OpInfo, TemplatePass

__all__ = ["StablehloExpandTriangularSolve"]


@register_pass
class StablehloExpandTriangularSolve(TemplatePass):
    """Replace every ``stablehlo.triangular_solve`` by core StableHLO (see the module docstring)."""

    argument = "stablehlo-expand-triangular-solve"
    summary = "Expand stablehlo.triangular_solve into while loops, slices and dot_general"
    illegal_ops = frozenset({"stablehlo.triangular_solve"})

    def attributes(self, op) -> tuple:
        """``(left_side, lower, transpose_a, unit_diagonal)``."""
        return (attributes.bool_value(op, "left_side", False), attributes.bool_value(op, "lower", False),
                attributes.enum_value(op, "transpose_a"), attributes.bool_value(op, "unit_diagonal", False))

    def build(self, e: Emitter, operands: list[V], info: OpInfo) -> V:
        left_side, lower, transpose_a, unit = info.attrs
        return build_triangular_solve(e, operands[0], operands[1], left_side, lower, transpose_a, unit)
