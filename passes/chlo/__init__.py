"""CHLO lowerings to StableHLO, findable per op (used by ``--chlo-legalize-to-stablehlo``).

Module map:

* :mod:`~hlokit.passes.chlo.table` — the index: op name -> ``build_<op>``, element types, kind;
* :mod:`~hlokit.passes.chlo.real` — f64 real kernels (erf, lgamma, digamma, zeta, ..., next_after, mulhi);
* :mod:`~hlokit.passes.chlo.complex` — complex kernels (asin/acos/asinh/acosh, atan/atanh, sinh/cosh/tan);
* :mod:`~hlokit.passes.chlo.elementwise` — ``build_<op>`` of the elementwise ops;
* :mod:`~hlokit.passes.chlo.broadcast` — ``build_broadcast_<op>`` of the broadcast family;
* :mod:`~hlokit.passes.chlo.structured` — top_k, constant_like, ragged_dot, scan, constant;
* :mod:`~hlokit.passes.chlo.templates` — :class:`OpInfo` and attribute reading (what a builder sees).

All of them build IR with :mod:`hlokit.passes.builder`. :func:`find_chlo_ops` is the one walker that
finds CHLO ops.
"""

from __future__ import annotations

from jaxlib.mlir import ir

from hlokit.passes.chlo.table import ELEMENTWISE, TABLE, OpSpec
from hlokit.passes.chlo.templates import OpInfo, read_attrs

__all__ = ["find_chlo_ops", "ELEMENTWISE", "TABLE", "OpSpec", "OpInfo", "read_attrs"]


def find_chlo_ops(root: ir.Operation | ir.OpView | ir.Module, first_only: bool = False) -> list[ir.Operation]:
    """Every CHLO op nested under ``root`` (an op or a module), in post-order (nested ops before the op holding them, as MLIR's default walk); with ``first_only``, at
    most the first one (the walk stops there). ``root`` itself is included when it is a CHLO op."""
    if isinstance(root, ir.Module):
        root = root.operation
    found: list[ir.Operation] = []

    def visit(o):
        if o.name.startswith("chlo."):
            found.append(o.operation)
            if first_only:
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found
