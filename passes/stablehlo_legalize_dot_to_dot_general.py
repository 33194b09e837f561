"""``--stablehlo-legalize-dot-to-dot-general``: rewrite ``stablehlo.dot`` as ``stablehlo.dot_general``.

``dot`` is kept out of the StableHLO specification's op list (https://openxla.org/stablehlo/spec, its
section on ``dot_general``: ``dot`` is slated for deprecation in favour of it): it is ``dot_general`` with no batching
dimensions, contracting the last dimension of ``lhs`` (rank 1 or 2) with the first of ``rhs`` (rank 1
or 2). ``precision_config`` is carried over.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import stablehlo

from hlokit.passes.registry import PatternPass, register_pass


def _dot_general(op) -> ir.Operation:
    """The ``dot_general`` equivalent to ``stablehlo.dot`` ``op`` (at the current insertion point)."""
    lhs, rhs = op.operands
    lhs_type = ir.RankedTensorType(lhs.type)
    dims = stablehlo.DotDimensionNumbers.get(
        lhs_batching_dimensions=[],
        rhs_batching_dimensions=[],
        lhs_contracting_dimensions=[lhs_type.rank - 1],
        rhs_contracting_dimensions=[0],
        context=op.context,
    )
    attrs = op.attributes
    precision = attrs["precision_config"] if "precision_config" in attrs else None
    return stablehlo.DotGeneralOp(op.result.type, lhs, rhs, dims, precision_config=precision)


def rewrite_dot(op, rewriter):
    """Pattern: ``stablehlo.dot(lhs, rhs)`` -> ``stablehlo.dot_general`` contracting lhs[-1] x rhs[0]."""
    with rewriter.ip, op.location:
        new = _dot_general(op)
    rewriter.replace_op(op, new)


def replace_dot(op) -> None:
    """Replace ``stablehlo.dot`` ``op`` by its ``dot_general`` in place (what :func:`rewrite_dot` does,
    without a pattern driver)."""
    with ir.InsertionPoint(op), op.location:
        new = _dot_general(op)
    op.results[0].replace_all_uses_with(new.result)
    op.erase()


@register_pass
class StablehloLegalizeDotToDotGeneral(PatternPass):
    """Rewrite every ``stablehlo.dot`` as the equivalent ``stablehlo.dot_general``."""

    argument = "stablehlo-legalize-dot-to-dot-general"
    summary = "Legalize stablehlo.dot to stablehlo.dot_general"
    anchor = "func.func"
    illegal_ops = frozenset({"stablehlo.dot"})

    def populate(self, patterns):
        patterns.add(stablehlo.DotOp, rewrite_dot)
