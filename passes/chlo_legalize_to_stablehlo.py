"""``--chlo-legalize-to-stablehlo``: expand every CHLO op into StableHLO ops (seed 000, "Dialect Interop").

CHLO has no compatibility guarantee, so a program must be legalized before it is serialized or
interpreted. This pass is hlokit's own (Python) implementation under the upstream flag name; the
expansions and their numerics are described in :mod:`hlokit.passes.chlo_decompositions`.

Design (speed): the expansion of an op depends only on its op name, element types and attributes (and,
for non-elementwise ops, its shapes). Each such signature is turned into a private ``func.func`` template
once per context (text generated once, parsed once per concrete shape) and kept in a scratch module. A
CHLO op is rewritten by cloning its template (one C++ call), moving the cloned body before the op and
rewiring operands/results: a few Python calls per op whatever the size of the expansion.

Atomicity: every CHLO op of the anchor is checked and every template is built before anything is
rewritten, so an unsupported op (element type, unranked or dynamic tensor, unsupported attribute mode)
fails the pass with a located diagnostic and leaves the IR untouched.
"""

from __future__ import annotations

import re

from jaxlib.mlir import ir

from hlokit.diagnostics import PassError
from hlokit.passes import chlo_decompositions as dec
from hlokit.passes.registry import Pass, register_pass

__all__ = ["ChloLegalizeToStablehlo", "TemplateCache"]

_ENUM = re.compile(r"#chlo<\w+\s+(\w+)>")


def _attr_text(name: str, attr: ir.Attribute) -> str:
    s = str(attr)
    if name in ("comparison_direction", "compare_type"):
        m = _ENUM.match(s)
        return m.group(1) if m else s
    return s


def _attrs(op: ir.Operation) -> dict:
    out = {}
    for named in op.attributes:
        name = named.name
        if name == "broadcast_dimensions":
            out[name] = [int(v) for v in ir.DenseI64ArrayAttr(named.attr)]
        elif name == "k":
            out[name] = ir.IntegerAttr(named.attr).value
        else:
            out[name] = _attr_text(name, named.attr)
    return out


class TemplateCache:
    """Parsed expansion templates of one ``ir.Context``, kept in a scratch module.

    ``get(op)`` returns the template ``func.func`` for ``op``'s signature, building it on first use;
    raises :class:`~hlokit.passes.chlo_decompositions.UnsupportedError` when the op cannot be expanded.
    """

    def __init__(self, context: ir.Context):
        self.context = context
        with context, ir.Location.unknown(context):
            self.scratch = ir.Module.create()
        self.ip = ir.InsertionPoint(self.scratch.body)
        self.texts: dict[tuple, str] = {}
        self.funcs: dict[tuple, ir.Operation] = {}

    def get(self, op: ir.Operation, key: tuple, info: "dec.OpInfo", shape_prefix: str | None):
        fn = self.funcs.get(key)
        if fn is not None:
            return fn
        name = op.name
        if shape_prefix is not None:  # elementwise: shape-independent text, one parse per shape
            tkey = key[:-1]
            text = self.texts.get(tkey)
            if text is None:
                text = dec.template_text(name, info, "__chlo_template")
                self.texts[tkey] = text
            text = text.replace("$S", shape_prefix)
        else:
            text = dec.template_text(name, info, "__chlo_template")
        try:
            parsed = ir.Operation.parse(text, context=self.context)
        except ir.MLIRError as err:  # a bug in an expansion: report, never crash
            raise dec.UnsupportedError(f"internal error: expansion of '{name}' does not parse: {err}") from None
        with self.context:
            self.scratch.body.append(parsed)
        fn = parsed
        self.funcs[key] = fn
        return fn


def _tensor_types(values, what: str, op: ir.Operation):
    shapes, elems = [], []
    for v in values:
        t = v.type
        if not isinstance(t, ir.RankedTensorType):
            if isinstance(t, ir.UnrankedTensorType):
                raise PassError(
                    f"'{op.name}' on an unranked tensor ({t}) cannot be legalized: ranked tensors only",
                    op.location,
                )
            raise PassError(f"'{op.name}' {what} of type {t} is not a tensor", op.location)
        rt = ir.RankedTensorType(t)
        if not rt.has_static_shape:
            raise PassError(
                f"'{op.name}' with a dynamic shape ({t}) is not supported by chlo-legalize-to-stablehlo "
                "(static shapes only)",
                op.location,
            )
        shapes.append(list(rt.shape))
        elems.append(str(rt.element_type))
    return shapes, elems


@register_pass
class ChloLegalizeToStablehlo(Pass):
    """Legalize every CHLO op to StableHLO (hlokit's Python implementation of the upstream flag).

    Anchor ``func.func``. Static shapes; element types per op as in
    :data:`~hlokit.passes.chlo_decompositions.DECOMPOSITIONS`. Raises
    :class:`~hlokit.diagnostics.PassError` (located at the op) for an unranked or dynamic tensor, an
    element type or attribute mode the expansions do not cover, or ``chlo.scan`` (no decomposition);
    the IR is then unchanged.
    """

    argument = "chlo-legalize-to-stablehlo"
    summary = "Legalize CHLO to StableHLO (hlokit's Python expansions)"
    anchor = "func.func"

    def _cache(self, context: ir.Context) -> TemplateCache:
        caches = self.__dict__.setdefault("_caches", {})
        entry = caches.get(id(context))
        if entry is None or entry.context is not context:
            entry = TemplateCache(context)
            caches[id(context)] = entry
        return entry

    def run_on_operation(self, func_op: ir.Operation) -> None:
        found: list[ir.Operation] = []

        def collect(o):
            if o.name.startswith("chlo."):
                found.append(o.operation)
            return ir.WalkResult.ADVANCE

        func_op.walk(collect)
        if not found:
            return
        cache = self._cache(func_op.context)
        plan = []
        for op in found:
            plan.append((op, self._plan(op, cache)))
        for op, fn in plan:
            if fn is None:
                self._rewrite_constant(op)
                continue
            clone = fn.clone(ip=cache.ip)
            block = clone.regions[0].blocks[0]
            for arg, operand in zip(block.arguments, op.operands):
                arg.replace_all_uses_with(operand)
            body = list(block.operations)
            for inner in body[:-1]:
                inner.move_before(op)
            for res, val in zip(op.results, body[-1].operands):
                res.replace_all_uses_with(val)
            op.erase()
            clone.erase()

    def _plan(self, op: ir.Operation, cache: TemplateCache):
        """Check ``op`` and return its template (None for ``chlo.constant``); PassError when unsupported."""
        name = op.name
        if name == "chlo.constant":
            return None
        if name == "chlo.scan":
            raise PassError(
                "'chlo.scan' has no StableHLO decomposition (upstream has none either); "
                "it cannot be legalized",
                op.location,
            )
        spec = dec.DECOMPOSITIONS.get(name)
        if spec is None:
            raise PassError(f"'{name}' is not supported by chlo-legalize-to-stablehlo", op.location)
        o_shapes, o_elems = _tensor_types(op.operands, "operand", op)
        r_shapes, r_elems = _tensor_types(op.results, "result", op)
        if spec.types is not None and o_elems and o_elems[-1] not in spec.types and o_elems[0] not in spec.types:
            raise PassError(
                f"'{name}' on element type '{o_elems[0]}' is not supported by chlo-legalize-to-stablehlo "
                f"(supported: {', '.join(spec.types)})",
                op.location,
            )
        attrs = _attrs(op)
        info = dec.OpInfo(o_shapes, o_elems, r_shapes, r_elems, attrs)
        if spec.elementwise and all(s == r_shapes[0] for s in o_shapes + r_shapes):
            prefix = "".join(f"{d}x" for d in r_shapes[0])
            key = (name, tuple(o_elems), tuple(r_elems), tuple(sorted((k, str(v)) for k, v in attrs.items())), prefix)
        else:
            prefix = None
            key = (name, tuple(map(str, (v.type for v in op.operands))), tuple(map(str, (v.type for v in op.results))),
                   tuple(sorted((k, str(v)) for k, v in attrs.items())), None)
        try:
            return cache.get(op, key, info, prefix)
        except dec.UnsupportedError as err:
            raise PassError(str(err), op.location) from None

    @staticmethod
    def _rewrite_constant(op: ir.Operation) -> None:
        value = op.attributes["value"]
        with ir.InsertionPoint(op), op.location:
            new = ir.Operation.create("stablehlo.constant", results=[op.results[0].type], attributes={"value": value})
        op.results[0].replace_all_uses_with(new.results[0])
        op.erase()
