"""Templates of CHLO lowerings: what a builder sees (:class:`OpInfo`), the template text, the parsed cache.

The expansion of a CHLO op depends only on its op name, element types and attributes (and, except for
elementwise ops, its shapes). Each such signature is written by its ``build_<op>`` (see
:mod:`hlokit.passes.chlo.table`) into a ``func.func`` *template* once (text generated once, parsed once
per concrete shape) and kept in a scratch module of the context (:class:`TemplateCache`); each op is
then rewritten by cloning its template.
"""

from __future__ import annotations

from jaxlib.mlir import ir
from jaxlib.mlir.dialects import chlo

from hlokit import attributes
from hlokit.passes.builder import Emitter, UnsupportedError, V, shape_prefix
from hlokit.passes.chlo.structured import SCAN_BODY
from hlokit.passes.chlo.table import TABLE

__all__ = ["OpInfo", "read_attrs", "attr_value", "template_text", "TemplateCache", "splice"]


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


class TemplateCache:
    """Parsed expansion templates of one ``ir.Context``, kept in a scratch module.

    ``get(op, key, info, shape_prefix)`` returns the template ``func.func`` for ``op``'s signature
    ``key``, building it on first use; raises :class:`UnsupportedError` when the op cannot be expanded.
    """

    def __init__(self, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(context):
            self.scratch = ir.Module.create()
        self.ip = ir.InsertionPoint(self.scratch.body)
        self.texts: dict[tuple, str] = {}
        self.funcs: dict[tuple, ir.Operation] = {}

    def get(self, op: ir.Operation, key: tuple, info: OpInfo, prefix: str | None) -> ir.Operation:
        fn = self.funcs.get(key)
        if fn is not None:
            return fn
        name = op.name
        if prefix is not None:  # elementwise: shape-independent text, one parse per shape
            tkey = key[:-1]
            text = self.texts.get(tkey)
            if text is None:
                text = template_text(name, info, "__chlo_template")
                self.texts[tkey] = text
            text = text.replace("$S", prefix)
        else:
            text = template_text(name, info, "__chlo_template", placeholder=False)
        try:
            parsed = ir.Operation.parse(text, context=self.context)
        except ir.MLIRError as err:  # a bug in an expansion: report, never crash
            raise UnsupportedError(f"internal error: expansion of '{name}' does not parse: {err}") from None
        with self.context:
            self.scratch.body.append(parsed)
        self.funcs[key] = parsed
        return parsed


def splice(root: ir.Operation, callee: str, block: ir.Block) -> None:
    """Replace the placeholder ``stablehlo.custom_call @callee`` under ``root`` (written by
    :meth:`Emitter.splice_point`) by the ops of ``block``: the block's arguments become the call's
    operands, the values its terminator returns replace the call's results."""
    found = []

    def visit(o):
        if o.name == "stablehlo.custom_call" and attributes.str_value(o, "call_target_name") == callee:
            found.append(o.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    for call in found:
        for arg, operand in zip(block.arguments, call.operands):
            arg.replace_all_uses_with(operand)
        ops = list(block.operations)
        for inner in ops[:-1]:
            inner.move_before(call)
        for res, val in zip(call.results, ops[-1].operands):
            res.replace_all_uses_with(val)
        call.erase()
