"""What a CHLO builder sees: :class:`OpInfo` (the template base's,
:class:`hlokit.passes.template_pass.OpInfo`) whose ``attrs`` are the op's attributes as plain Python values
(:func:`read_attrs`).

The expansion of a CHLO op depends only on its op name, element types and attributes (and, except for
elementwise ops, its shapes); ``--chlo-legalize-to-stablehlo`` (a
:class:`~hlokit.passes.template_pass.TemplatePass`) builds each such signature once with its
``build_<op>`` (see :mod:`hlokit.passes.chlo.table`) and clones it in place of each op.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo

from hlokit import attributes
from hlokit.passes.template_pass import OpInfo

__all__ = ["OpInfo", "read_attrs", "attr_value"]


def attr_value(op, name: str):
    """The attribute ``name`` of a CHLO op as a plain value, read with :mod:`hlokit.attributes` and the
    bindings' attribute classes: int arrays -> ``list[int]``, enums -> case name, integers / bools /
    floats -> Python numbers, ``ragged_dot_dimension_numbers`` -> ``dict[str, list[int]]``; any other
    attribute is returned as the ``ir.Attribute``. Raises :class:`attributes.AttributeReadError`."""
    a = attributes.get(op, name)
    if name in ("comparison_direction", "compare_type"):
        return attributes.enum_value(op, name)
    if name == "ragged_dot_dimension_numbers":
        dn = chlo.RaggedDotDimensionNumbers(a)
        return {f: list(getattr(dn, f)) for f in (
            "lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions",
            "rhs_contracting_dimensions", "lhs_ragged_dimensions", "rhs_group_dimensions")}
    if isinstance(a, ir.BoolAttr):
        return ir.BoolAttr(a).value
    if isinstance(a, ir.IntegerAttr):
        return ir.IntegerAttr(a).value
    if isinstance(a, ir.FloatAttr):
        return ir.FloatAttr(a).value
    ints = attributes.int_array_of(a)
    if ints is not None:
        return ints
    return a


def read_attrs(op: ir.Operation) -> dict:
    """Every attribute of ``op`` as :func:`attr_value` reads it (``dict`` name -> value)."""
    return {name: attr_value(op, name) for name in op.attributes}
