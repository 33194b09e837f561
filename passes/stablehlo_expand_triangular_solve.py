"""``--stablehlo-expand-triangular-solve``: ``stablehlo.triangular_solve`` -> core StableHLO.

Semantics: StableHLO specification, "triangular_solve"
(https://openxla.org/stablehlo/spec#triangular_solve), and XLA's operation semantics, "TriangularSolve"
(https://openxla.org/xla/operation_semantics#triangularsolve): batched solutions ``x`` of
``op(a) x = b`` (``left_side = true``) or ``x op(a) = b``, where ``op`` is identity, transpose or adjoint
(``transpose_a`` NO_TRANSPOSE, TRANSPOSE, ADJOINT), ``a`` is read in its ``lower`` (else upper)
triangle only, and ``unit_diagonal`` takes its diagonal as ones without reading it. The algorithms are
those of XLA's expander (openxla/xla ``xla/service/triangular_solve_expander.cc``): substitution
(``SolveDirectly``) up to 32 rows, inverted diagonal blocks of 16 rows and one block loop
(``SolveByInvertingDiagonalBlocks``) above; see :func:`hlokit.passes.linalg_expand.build_triangular_solve`
and the run-time table in :mod:`hlokit.passes.linalg_expand`. Every combination of the four attributes
is supported.

A zero on the diagonal of ``a`` (a singular system; the spec leaves the result undefined) gives inf /
NaN in the rows that depend on it, as on XLA.

Element types: f16, bf16 (computed in f32), f32, f64, complex<f32>, complex<f64>. Static shapes only;
a dynamic or unranked operand is refused with a located error and the function is left unchanged.
"""

from __future__ import annotations

from hlokit import attributes
from hlokit.passes.builder import Emitter, V
from hlokit.passes.linalg_expand import ExpandPass, build_triangular_solve
from hlokit.passes.registry import register_pass

__all__ = ["StablehloExpandTriangularSolve"]


@register_pass
class StablehloExpandTriangularSolve(ExpandPass):
    """Replace every ``stablehlo.triangular_solve`` by core StableHLO (see the module docstring)."""

    argument = "stablehlo-expand-triangular-solve"
    summary = "Expand stablehlo.triangular_solve into while loops, slices and dot_general"
    op_name = "stablehlo.triangular_solve"

    def config(self, op) -> tuple:
        return (attributes.bool_value(op, "left_side", False), attributes.bool_value(op, "lower", False),
                attributes.enum_value(op, "transpose_a"), attributes.bool_value(op, "unit_diagonal", False))

    def build(self, e: Emitter, args: list[V], config: tuple) -> V:
        left_side, lower, transpose_a, unit = config
        return build_triangular_solve(e, args[0], args[1], left_side, lower, transpose_a, unit)
