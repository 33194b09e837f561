"""Templates of CHLO lowerings: what a builder sees (:class:`OpInfo`), the template text, the parsed cache.

The expansion of a CHLO op depends only on its op name, element types and attributes (and, except for
elementwise ops, its shapes). Each such signature is written by its ``build_<op>`` (see
:mod:`hlokit.passes.chlo.table`) into a ``func.func`` *template* once (text generated once, parsed once
per concrete shape) and kept in a scratch module of the context
(:class:`hlokit.passes.builder.TemplateCache`); each op is then rewritten by cloning its template
(:func:`hlokit.passes.builder.instantiate`).
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo

from hlokit import attributes
from hlokit.passes.builder import Emitter, TemplateCache, UnsupportedError, shape_prefix
from hlokit.passes.chlo.table import TABLE

__all__ = ["OpInfo", "read_attrs", "attr_value", "template_text", "template_for"]


class OpInfo:
    """What a builder may look at: operand/result shapes (``-1``: dynamic) and element types, and
    attributes as plain Python values (:func:`read_attrs`)."""

    __slots__ = ("operand_shapes", "operand_elems", "result_shapes", "result_elems", "attrs")

    def __init__(self, operand_shapes, operand_elems, result_shapes, result_elems, attrs):
        self.operand_shapes = operand_shapes
        self.operand_elems = operand_elems
        self.result_shapes = result_shapes
        self.result_elems = result_elems
        self.attrs = attrs


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


def template_text(op_name: str, info: OpInfo, func_name: str, placeholder: bool = True) -> str:
    """The ``func.func private @func_name`` text expanding ``op_name`` for the signature in ``info``.

    For elementwise ops with ``placeholder`` every shape is the placeholder ``$S`` (replace it with
    ``"4x3x"`` etc.); otherwise the shapes of ``info`` (``-1``: dynamic) are written out. Raises
    :class:`UnsupportedError` for a combination the expansions do not cover.
    """
    spec = TABLE.get(op_name)
    if spec is None or spec.kind == "direct":
        raise UnsupportedError(f"'{op_name}' has no StableHLO template in hlokit")
    e = Emitter(loc=op_name)
    if spec.elementwise and placeholder:
        shapes = ["$S"] * len(info.operand_elems)
    else:
        shapes = [shape_prefix(s) for s in info.operand_shapes]
    args = e.args(list(zip(shapes, info.operand_elems)))
    dynamic = any(d < 0 for s in info.operand_shapes for d in s)
    if dynamic and not spec.dynamic_ok:
        raise UnsupportedError(f"'{op_name}' with dynamic shapes is not supported (static shapes only)")
    if dynamic and spec.elementwise:
        e.shape_tensor = e.shape_of(args[0], info.operand_shapes[0])
    results = spec.build(e, args, info)
    # results must carry the op's result types
    for r, t in zip(results, info.result_elems):
        if r.t != t:
            raise UnsupportedError(f"internal: expansion of '{op_name}' yields {r.t}, expected {t}")
    return e.text(func_name, args, results)


def template_for(cache: TemplateCache, op: ir.Operation, key: tuple, info: OpInfo, prefix: str | None) -> ir.Operation:
    """The parsed template of ``op``'s signature ``key`` in ``cache``, built on first use. ``prefix``
    (elementwise ops): the concrete shape replacing ``$S`` in the shared shape-independent text.
    Raises :class:`UnsupportedError` when the op cannot be expanded."""
    fn = cache.funcs.get(key)
    if fn is not None:
        return fn
    name = op.name
    if prefix is not None:  # elementwise: shape-independent text, one parse per shape
        tkey = key[:-1]
        text = cache.texts.get(tkey)
        if text is None:
            text = template_text(name, info, "__chlo_template")
            cache.texts[tkey] = text
        text = text.replace("$S", prefix)
    else:
        text = template_text(name, info, "__chlo_template", placeholder=False)
    return cache.parse(key, text, name)
